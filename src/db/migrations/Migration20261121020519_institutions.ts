import { Migration } from '@mikro-orm/migrations';

export class Migration20261121020519_institutions extends Migration {
  override name = 'Migration20261121020519_institutions';

  override up(): void | Promise<void> {
    this.addSql(`create type "institution_status" as enum ('active', 'inactive', 'suspended');`);
    this.addSql(
      `create table "institutions" ("uuid" uuid not null, "created_at" timestamptz(6) not null, "updated_at" timestamptz(6) not null, "tenant_uuid" uuid not null, "deleted_at" timestamptz(6) null, "name" varchar(255) not null, "legal_name" varchar(255) null, "tax_id" varchar(64) null, "country" varchar(100) not null, "website" varchar(2048) null, "network_organization" varchar(255) null, "status" "institution_status" not null default 'active', "is_badges_enabled" boolean not null default false, "badge_image_uuid" uuid null, primary key ("uuid"));`,
    );
    this.addSql(`create index "institutions_tenant_uuid_index" on "institutions" ("tenant_uuid");`);

    this.addSql(`alter table "institutions" add constraint "institutions_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "institutions" cascade;`);

    this.addSql(`drop type "institution_status";`);
  }
}
