import { type Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/**
 * The random salt of one certificate's Open Badges recipient hash. Drawn at the first read of the
 * assertion and kept, so the hosted, REST, GraphQL and baked documents agree forever after.
 * Keyed by the certificate (a plain uuid column, like StoredFile.usedByUuid); the salt is no secret.
 */
@Entity({ tableName: 'badge_assertion_salts' })
export class BadgeAssertionSalt {
  @PrimaryKey({ type: 'uuid' })
  certificateUuid!: string;

  @Property({ length: 64 })
  salt!: string;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)' })
  createdAt: Date & Opt = new Date();
}
