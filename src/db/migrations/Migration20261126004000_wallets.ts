import { Migration } from '@mikro-orm/migrations';

/**
 * Students take their credentials to wallets (docs/wallets.md): the transcript as a CLR 2.0 credential
 * beside each OB 3.0 credential, and OpenID4VCI credential offers with their single-use codes,
 * wallet access tokens, nonces and recorded claims.
 */
export class Migration20261126004000_wallets extends Migration {
  override name = 'Migration20261126004000_wallets';

  override up(): void | Promise<void> {
    this.addSql(`alter table "ob3_credentials" add column "clr_document" jsonb null;`);
    this.addSql(
      `create table "credential_offers" ("uuid" uuid not null, "tenant_uuid" uuid not null, "certificate_uuid" uuid not null, "code_hash" varchar(64) not null, "tx_code_hash" varchar(64) null, "tx_code_failures" int not null default 0, "expires_at" timestamptz(6) not null, "redeemed_at" timestamptz(6) null, "revoked_at" timestamptz(6) null, "created_at" timestamptz(6) not null, primary key ("uuid"));`,
    );
    this.addSql(`create unique index "credential_offers_code_hash_unique" on "credential_offers" ("code_hash");`);
    this.addSql(`create index "credential_offers_certificate_uuid_index" on "credential_offers" ("certificate_uuid");`);
    this.addSql(
      `create table "wallet_access_tokens" ("token_hash" varchar(64) not null, "offer_uuid" uuid not null, "expires_at" timestamptz(6) not null, primary key ("token_hash"));`,
    );
    this.addSql(`create table "wallet_nonces" ("nonce_hash" varchar(64) not null, "expires_at" timestamptz(6) not null, primary key ("nonce_hash"));`);
    this.addSql(
      `create table "credential_claims" ("uuid" uuid not null, "offer_uuid" uuid not null, "certificate_uuid" uuid not null, "tenant_uuid" uuid not null, "configuration_id" varchar(64) not null, "holder" text not null, "claimed_at" timestamptz(6) not null, primary key ("uuid"));`,
    );
    this.addSql(`create index "credential_claims_offer_uuid_index" on "credential_claims" ("offer_uuid");`);
    this.addSql(`create index "credential_claims_certificate_uuid_index" on "credential_claims" ("certificate_uuid");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "credential_claims" cascade;`);
    this.addSql(`drop table if exists "wallet_nonces" cascade;`);
    this.addSql(`drop table if exists "wallet_access_tokens" cascade;`);
    this.addSql(`drop table if exists "credential_offers" cascade;`);
    this.addSql(`alter table "ob3_credentials" drop column if exists "clr_document";`);
  }
}
