import { type Opt } from '@mikro-orm/core';
import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { randomUUID } from 'node:crypto';

/**
 * An OpenID4VCI credential offer of one issued certificate (docs/wallets.md): its pre-authorized
 * code and optional PIN (tx_code) stored as SHA-256 hashes, single-use and short-lived. Tenant-scoped by
 * column; the wallet endpoints find it by its code's hash, the APIs by uuid within the tenant.
 */
@Entity({ tableName: 'credential_offers' })
export class CredentialOffer {
  @PrimaryKey({ type: 'uuid' })
  uuid: string & Opt = randomUUID();

  @Property({ type: 'uuid' })
  tenantUuid!: string;

  @Index()
  @Property({ type: 'uuid' })
  certificateUuid!: string;

  @Property({ length: 64, unique: true })
  codeHash!: string;

  @Property({ length: 64, nullable: true })
  txCodeHash?: string | null;

  @Property({ type: 'integer', default: 0 })
  txCodeFailures: number & Opt = 0;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)' })
  expiresAt!: Date;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  redeemedAt?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  revokedAt?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)' })
  createdAt: Date & Opt = new Date();
}

/** The access token a redeemed offer's wallet presents at the credential endpoint (hashed). */
@Entity({ tableName: 'wallet_access_tokens' })
export class WalletAccessToken {
  @PrimaryKey({ length: 64 })
  tokenHash!: string;

  @Property({ type: 'uuid' })
  offerUuid!: string;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)' })
  expiresAt!: Date;
}

/** A c_nonce handed out by the nonce endpoint; deleted when a proof uses it (single use). */
@Entity({ tableName: 'wallet_nonces' })
export class WalletNonce {
  @PrimaryKey({ length: 64 })
  nonceHash!: string;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)' })
  expiresAt!: Date;
}

/** One credential a wallet received: which configuration, which holder DID, when. */
@Entity({ tableName: 'credential_claims' })
export class CredentialClaim {
  @PrimaryKey({ type: 'uuid' })
  uuid: string & Opt = randomUUID();

  @Index()
  @Property({ type: 'uuid' })
  offerUuid!: string;

  @Index()
  @Property({ type: 'uuid' })
  certificateUuid!: string;

  @Property({ type: 'uuid' })
  tenantUuid!: string;

  @Property({ length: 64 })
  configurationId!: string;

  @Property({ type: 'text' })
  holder!: string;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)' })
  claimedAt: Date & Opt = new Date();
}
