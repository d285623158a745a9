import { type Opt, type Ref } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { uuidv7 } from '../db/uuid.js';
import { Tenant } from '../tenants/tenant.entity.js';
import { CLIENT_REVOKED_TRIGGERS } from './principal-revocations.js';

/** Client credentials of one integration; the secret is kept only as a SHA-256 hash. */
// Revoking one NOTIFYs every process's principal cache (auth/principal-revocations.ts).
@Entity({ tableName: 'oauth_clients', triggers: CLIENT_REVOKED_TRIGGERS })
export class OAuthClient {
  @PrimaryKey({ type: 'uuid' })
  uuid: string & Opt = uuidv7();

  @ManyToOne(() => Tenant, { ref: true, index: true })
  tenant!: Ref<Tenant>;

  @Property({ length: 100, unique: true })
  clientId!: string;

  @Property({ length: 64 })
  secretHash!: string;

  @Property({ length: 255 })
  name!: string;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)' })
  createdAt: Date & Opt = new Date();

  /** Set when the pair is rotated out; its tokens stop working at the same moment. */
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  revokedAt?: Date | null;
}
