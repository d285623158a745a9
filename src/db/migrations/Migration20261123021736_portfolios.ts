import { Migration } from '@mikro-orm/migrations';

export class Migration20261123021736_portfolios extends Migration {
  override name = 'Migration20261123021736_portfolios';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "portfolio_pages" ("uuid" uuid not null, "created_at" timestamptz(6) not null, "updated_at" timestamptz(6) not null, "tenant_uuid" uuid not null, "deleted_at" timestamptz(6) null, "student_uuid" uuid not null, "slug" varchar(64) not null, "is_public" boolean not null default false, "bio" text null, primary key ("uuid"));`,
    );
    this.addSql(`create index "portfolio_pages_tenant_uuid_index" on "portfolio_pages" ("tenant_uuid");`);
    this.addSql(`create index "portfolio_pages_student_uuid_index" on "portfolio_pages" ("student_uuid");`);
    this.addSql(`create unique index "portfolio_pages_slug_unique" on "portfolio_pages" ("tenant_uuid", "slug") where "deleted_at" is null;`);

    this.addSql(
      `create table "portfolio_items" ("uuid" uuid not null, "created_at" timestamptz(6) not null, "updated_at" timestamptz(6) not null, "tenant_uuid" uuid not null, "deleted_at" timestamptz(6) null, "page_uuid" uuid not null, "certificate_uuid" uuid not null, "sort_order" int not null, "is_visible" boolean not null default true, primary key ("uuid"));`,
    );
    this.addSql(`create index "portfolio_items_tenant_uuid_index" on "portfolio_items" ("tenant_uuid");`);
    this.addSql(`create index "portfolio_items_page_uuid_index" on "portfolio_items" ("page_uuid");`);
    this.addSql(`create index "portfolio_items_certificate_uuid_index" on "portfolio_items" ("certificate_uuid");`);
    this.addSql(`create unique index "portfolio_items_certificate_unique" on "portfolio_items" ("page_uuid", "certificate_uuid") where "deleted_at" is null;`);

    this.addSql(
      `alter table "portfolio_pages" add constraint "portfolio_pages_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid");`,
    );
    this.addSql(
      `alter table "portfolio_pages" add constraint "portfolio_pages_student_uuid_foreign" foreign key ("student_uuid") references "students" ("uuid");`,
    );

    this.addSql(
      `alter table "portfolio_items" add constraint "portfolio_items_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid");`,
    );
    this.addSql(
      `alter table "portfolio_items" add constraint "portfolio_items_page_uuid_foreign" foreign key ("page_uuid") references "portfolio_pages" ("uuid");`,
    );
    this.addSql(
      `alter table "portfolio_items" add constraint "portfolio_items_certificate_uuid_foreign" foreign key ("certificate_uuid") references "certificates" ("uuid");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "portfolio_items" drop constraint "portfolio_items_page_uuid_foreign";`);

    this.addSql(`drop table if exists "portfolio_pages" cascade;`);
    this.addSql(`drop table if exists "portfolio_items" cascade;`);
  }
}
