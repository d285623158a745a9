import { type Ref } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../db/base.entity.js';
import { Institution } from '../institutions/institution.entity.js';

/**
 * The key and certificate an institution signs with (PKCS#12): generated and self-signed on first
 * use, or installed by an operator. The newest live one is used; never exposed through the API.
 */
@Entity({ tableName: 'signing_identities' })
@Index({ name: 'signing_identities_current_unique', expression: 'create unique index "signing_identities_current_unique" on "signing_identities" ("institution_uuid") where "deleted_at" is null' })
export class SigningIdentity extends TenantScopedEntity {
  @ManyToOne(() => Institution, { ref: true })
  institution!: Ref<Institution>;

  @Property({ type: 'blob' })
  p12!: Buffer;

  @Property({ type: 'text' })
  passphrase!: string;

  @Property({ length: 95 })
  fingerprintSha256!: string;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)' })
  notAfter!: Date;

  /** `generated` (self-signed by the service) or `installed` (an operator's PKCS#12). */
  @Property({ length: 16 })
  origin!: string;
}
