import { type Ref } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../db/base.entity.js';
import { Institution } from '../institutions/institution.entity.js';

/**
 * The key and certificate an institution signs with: generated and self-signed on first use, or
 * installed by an operator from a PKCS#12. The private key is stored only sealed (signing-keys.ts);
 * the newest live one is used; never exposed through the API.
 */
@Entity({ tableName: 'signing_identities' })
@Index({
  name: 'signing_identities_current_unique',
  expression: 'create unique index "signing_identities_current_unique" on "signing_identities" ("institution_uuid") where "deleted_at" is null',
})
export class SigningIdentity extends TenantScopedEntity {
  @ManyToOne(() => Institution, { ref: true })
  institution!: Ref<Institution>;

  /** PKCS#8 private key in a key envelope bound to this row's uuid; nothing in the database opens it. */
  @Property({ type: 'blob' })
  sealedPrivateKey!: Buffer;

  /** The signer's certificate and its chain (public), one DER SEQUENCE. */
  @Property({ type: 'blob' })
  certificates!: Buffer;

  @Property({ length: 95 })
  fingerprintSha256!: string;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)' })
  notAfter!: Date;

  /** `generated` (self-signed by the service) or `installed` (an operator's PKCS#12). */
  @Property({ length: 16 })
  origin!: string;
}
