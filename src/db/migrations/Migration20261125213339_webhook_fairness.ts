import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook signing secrets are stored sealed (key envelope, src/security) instead of in plain text.
 * SQL cannot seal (the key-encryption key never reaches the database), so existing secrets move to
 * `webhook_secrets_unsealed` and the service seals them back at startup (src/webhooks/webhook-secrets.ts);
 * nothing else reads that table. Also: the failing streak that disables an endpoint, the tenant's
 * contact e-mail that hears of it, and the indexes the per-endpoint claim reads.
 */
export class Migration20261125213339_webhook_fairness extends Migration {
  override name = 'Migration20261125213339_webhook_fairness';

  override up(): void | Promise<void> {
    this.addSql(`alter table "tenants" add "contact_email" varchar(320) null;`);

    this.addSql(`create table "webhook_secrets_unsealed" as select "uuid" as "endpoint_uuid", "signing_secret" from "webhook_endpoints";`);
    this.addSql(`alter table "webhook_secrets_unsealed" add primary key ("endpoint_uuid");`);
    this.addSql(`alter table "webhook_endpoints" drop column "signing_secret";`);
    this.addSql(`alter table "webhook_endpoints" add "sealed_signing_secret" bytea null, add "failing_since" timestamptz(6) null;`);

    this.addSql(`create index "webhook_deliveries_lease_index" on "webhook_deliveries" ("locked_until") where "status" = 'pending';`);
    this.addSql(`create index "webhook_deliveries_endpoint_queue_index" on "webhook_deliveries" ("endpoint_uuid", "enqueued_at") where "status" = 'pending';`);
  }

  override down(): void | Promise<void> {
    throw new Error('webhook_fairness cannot be undone: the database never holds what opens a sealed secret');
  }
}
