import { type Ref } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../db/base.entity.js';
import { Institution } from '../../institutions/institution.entity.js';

/**
 * An Ed25519 key (Multikey) an institution signs Open Badges 3.0 credentials with. Made on first
 * use; the operator rotates it (cli `badges:rotate-key`): the new key signs, retired ones stay
 * published in the DID document so what they signed keeps verifying. The secret key is stored only sealed.
 */
@Entity({ tableName: 'ob3_issuer_keys' })
@Index({
  name: 'ob3_issuer_keys_active_unique',
  expression: 'create unique index "ob3_issuer_keys_active_unique" on "ob3_issuer_keys" ("institution_uuid") where "retired_at" is null',
})
export class IssuerKey extends TenantScopedEntity {
  @ManyToOne(() => Institution, { ref: true })
  institution!: Ref<Institution>;

  /** The public key, `z6Mk…`; also the fragment of its verification method id. */
  @Property({ length: 64 })
  publicKeyMultibase!: string;

  /** The secret key (multibase text) in a key envelope bound to this row's uuid. */
  @Property({ type: 'blob' })
  sealedSecretKey!: Buffer;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  retiredAt?: Date | null;
}
