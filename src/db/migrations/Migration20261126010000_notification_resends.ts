import { Migration } from '@mikro-orm/migrations';

/** Resending a certificate's e-mail counts the recent messages about it: one index range per certificate. */
export class Migration20261126010000_notification_resends extends Migration {
  override name = 'Migration20261126010000_notification_resends';

  override up(): void | Promise<void> {
    this.addSql(
      `create index "notifications_reference_index" on "notifications" ("tenant_uuid", "reference_uuid", "created_at") where "reference_uuid" is not null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "notifications_reference_index";`);
  }
}
