import { Migration } from '@mikro-orm/migrations';

/** Pages people share: per-certificate daily engagement counts, and whether an institution shows grades on its public pages. */
export class Migration20261126004306_public_pages extends Migration {
  override name = 'Migration20261126004306_public_pages';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "certificate_engagement" ("certificate_uuid" uuid not null, "day" date not null, "event" varchar(24) not null, "tenant_uuid" uuid not null, "count" int not null default 0, primary key ("certificate_uuid", "day", "event"));`,
    );
    this.addSql(`create index "certificate_engagement_tenant_index" on "certificate_engagement" ("tenant_uuid");`);
    this.addSql(`alter table "institutions" add "is_grade_public" boolean not null default false;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "certificate_engagement";`);
    this.addSql(`alter table "institutions" drop column "is_grade_public";`);
  }
}
