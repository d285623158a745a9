import { Migration } from '@mikro-orm/migrations';

/**
 * A delivery that finds its tenant's share of deliveries in flight taken is parked until one of them
 * finishes, instead of looking again every few seconds (src/webhooks/webhook-schedule.ts, `PARK_FOR_TENANT`).
 */
export class Migration20261128171500_webhook_parking extends Migration {
  override name = 'Migration20261128171500_webhook_parking';

  override up(): void | Promise<void> {
    this.addSql(`alter table "webhook_deliveries" add column "parked_at" timestamptz(6) null`);
    this.addSql(
      `create index "webhook_deliveries_parked_index" on "webhook_deliveries" ("tenant_uuid", "parked_at", "uuid") where "status" = 'pending' and "parked_at" is not null`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "webhook_deliveries_parked_index"`);
    this.addSql(`alter table "webhook_deliveries" drop column "parked_at"`);
  }
}
