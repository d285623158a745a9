import { Migration } from '@mikro-orm/migrations';

/** The stored size of each template's `design_config`, kept by PostgreSQL: what showing it costs an answer (docs/response-limits.md). */
export class Migration20261125213410_design_config_bytes extends Migration {
  override name = 'Migration20261125213410_design_config_bytes';

  override up(): void | Promise<void> {
    this.addSql(`alter table "certificate_templates" add "design_config_bytes" int generated always as (octet_length((design_config)::text)) stored null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "certificate_templates" drop column "design_config_bytes";`);
  }
}
