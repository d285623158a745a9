import { Migration } from '@mikro-orm/migrations';

export class Migration20261123083044_list_indexes extends Migration {
  override name = 'Migration20261123083044_list_indexes';

  override up(): void | Promise<void> {
    this.addSql(`create index "students_live_index" on "students" ("tenant_uuid", "uuid") where "deleted_at" is null;`);

    this.addSql(`create index "institutions_live_index" on "institutions" ("tenant_uuid", "uuid") where "deleted_at" is null;`);

    this.addSql(`create index "modules_live_index" on "modules" ("tenant_uuid", "uuid") where "deleted_at" is null;`);

    this.addSql(`create index "courses_live_index" on "courses" ("tenant_uuid", "uuid") where "deleted_at" is null;`);

    this.addSql(`create index "cohorts_live_index" on "cohorts" ("tenant_uuid", "uuid") where "deleted_at" is null;`);

    this.addSql(`create index "enrollments_live_index" on "enrollments" ("tenant_uuid", "uuid") where "deleted_at" is null;`);

    this.addSql(`create index "certificate_templates_live_index" on "certificate_templates" ("tenant_uuid", "uuid") where "deleted_at" is null;`);

    this.addSql(`create index "certificates_live_index" on "certificates" ("tenant_uuid", "uuid") where "deleted_at" is null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "certificate_templates_live_index";`);

    this.addSql(`drop index "certificates_live_index";`);

    this.addSql(`drop index "cohorts_live_index";`);

    this.addSql(`drop index "courses_live_index";`);

    this.addSql(`drop index "enrollments_live_index";`);

    this.addSql(`drop index "institutions_live_index";`);

    this.addSql(`drop index "modules_live_index";`);

    this.addSql(`drop index "students_live_index";`);
  }
}
