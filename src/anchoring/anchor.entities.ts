import { type Opt, type Ref } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, OneToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Certificate } from '../certificates/certificate.entity.js';
import { uuidv7 } from '../db/uuid.js';

/**
 * The anchoring addresses this service has sent from, and when each was first registered (the
 * `created` of the issuer profiles' key: verifiers refuse transactions older than it). A key
 * generated here is kept sealed with KEY_ENCRYPTION_KEY; one from ANCHOR_PRIVATE_KEY is not stored.
 */
@Entity({ tableName: 'anchor_keys' })
export class AnchorKey {
  /** 0x…, lower case. */
  @PrimaryKey({ length: 42 })
  address!: string;

  @Property({ type: 'blob', nullable: true })
  sealedPrivateKey?: Buffer | null;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)' })
  createdAt: Date & Opt = new Date();
}

/**
 * One anchoring transaction: the Merkle root of a batch of certificates, signed before it is sent
 * (so a crash between sending and confirming finds the same transaction to follow up), then its
 * block once confirmed. Batches of every tenant share it.
 */
@Entity({ tableName: 'anchor_batches' })
@Index({
  name: 'anchor_batches_open_index',
  expression: `create index "anchor_batches_open_index" on "anchor_batches" ("from_address") where "confirmed_at" is null`,
})
export class AnchorBatch {
  @PrimaryKey({ type: 'uuid' })
  uuid: string & Opt = uuidv7();

  @Property({ length: 16 })
  network!: string;

  @Property({ length: 42 })
  fromAddress!: string;

  @Property({ length: 64 })
  merkleRoot!: string;

  @Property({ type: 'integer' })
  size!: number;

  @Property({ type: 'bigint' })
  nonce!: string;

  /** 0x…, of the signed transaction below (replaced when the transaction had to be signed again). */
  @Property({ length: 66 })
  txHash!: string;

  @Property({ type: 'text' })
  rawTransaction!: string;

  /** How many times it was signed (1, unless its nonce was taken by another transaction). */
  @Property({ type: 'integer' })
  signings: number & Opt = 1;

  @Property({ type: 'bigint', nullable: true })
  blockNumber?: string | null;

  /** The block's time: when the root was anchored. */
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  anchoredAt?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  confirmedAt?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)' })
  createdAt: Date & Opt = new Date();
}

/**
 * A certificate's place in a batch: its Blockcerts credential as hashed (frozen, so the document
 * served later is byte for byte what was anchored), the leaf hash and its Merkle path.
 */
@Entity({ tableName: 'certificate_anchors' })
export class CertificateAnchor {
  @OneToOne(() => Certificate, { primary: true, ref: true, deleteRule: 'cascade' })
  certificate!: Ref<Certificate>;

  @ManyToOne(() => AnchorBatch, { ref: true, index: true })
  batch!: Ref<AnchorBatch>;

  @Property({ length: 64 })
  targetHash!: string;

  @Property({ type: 'jsonb' })
  path!: object[];

  @Property({ type: 'jsonb' })
  credential!: Record<string, unknown>;
}
