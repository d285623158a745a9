import { Migration } from '@mikro-orm/migrations';

const TABLES = ['institutions', 'courses', 'students', 'certificates'];

/** Integrators' own identifiers: optional, unique per tenant among live rows of one resource. */
export class Migration20261126004000_external_ids extends Migration {
  override name = 'Migration20261126004000_external_ids';

  override up(): void | Promise<void> {
    for (const table of TABLES) {
      this.addSql(`alter table "${table}" add "external_id" varchar(255) null;`);
      this.addSql(
        `create unique index "${table}_external_id_unique" on "${table}" ("tenant_uuid", "external_id") where "deleted_at" is null and "external_id" is not null;`,
      );
    }
  }

  override down(): void | Promise<void> {
    for (const table of TABLES) this.addSql(`alter table "${table}" drop column "external_id";`);
  }
}
