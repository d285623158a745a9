import { type Opt, type Ref } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { uuidv7 } from '../db/uuid.js';
import { OAuthClient } from './oauth-client.entity.js';
import { TOKEN_REVOKED_TRIGGERS } from './principal-revocations.js';

/** An issued bearer token; only the SHA-256 of the opaque value is stored. */
// Revoking one NOTIFYs every process's principal cache (auth/principal-revocations.ts).
@Entity({ tableName: 'oauth_access_tokens', triggers: TOKEN_REVOKED_TRIGGERS })
export class AccessToken {
  @PrimaryKey({ type: 'uuid' })
  uuid: string & Opt = uuidv7();

  @Property({ length: 64, unique: true })
  tokenHash!: string;

  @ManyToOne(() => OAuthClient, { ref: true, index: true })
  client!: Ref<OAuthClient>;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz(6)', index: true })
  expiresAt!: Date;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  revokedAt?: Date | null;
}
