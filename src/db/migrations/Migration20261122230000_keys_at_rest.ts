import { Migration } from '@mikro-orm/migrations';

/**
 * Private keys are stored sealed (key envelope, src/security) instead of as a PKCS#12 beside its
 * passphrase. SQL cannot seal (the key-encryption key never reaches the database), so existing rows
 * move to `signing_identities_unsealed` and the service seals them back at startup
 * (src/certificates/legacy-keys.ts); nothing else reads that table.
 */
export class Migration20261122230000_keys_at_rest extends Migration {
  override name = 'Migration20261122230000_keys_at_rest';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "signing_identities_unsealed" as select "uuid", "tenant_uuid", "institution_uuid", "created_at", "updated_at", "deleted_at", "p12", "passphrase", "fingerprint_sha256", "not_after", "origin" from "signing_identities";`,
    );
    this.addSql(`alter table "signing_identities_unsealed" add primary key ("uuid");`);
    this.addSql(`delete from "signing_identities";`);
    this.addSql(
      `alter table "signing_identities" drop column "p12", drop column "passphrase", add column "sealed_private_key" bytea not null, add column "certificates" bytea not null;`,
    );
  }

  override down(): void | Promise<void> {
    throw new Error('keys_at_rest cannot be undone: the database never holds what opens a sealed key');
  }
}
