import { Migration } from '@mikro-orm/migrations';

export class Migration20261123050135_open_badges_v3 extends Migration {
  override name = 'Migration20261123050135_open_badges_v3';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "ob3_credentials" ("certificate_uuid" uuid not null, "institution_uuid" uuid not null, "status_index" int not null, "document" jsonb not null, "created_at" timestamptz(6) not null, primary key ("certificate_uuid"));`,
    );
    this.addSql(`create index "ob3_credentials_institution_uuid_index" on "ob3_credentials" ("institution_uuid");`);

    this.addSql(
      `create table "ob3_status_list_credentials" ("institution_uuid" uuid not null, "list_number" int not null, "version" int not null, "document" jsonb not null, primary key ("institution_uuid", "list_number"));`,
    );

    this.addSql(
      `create table "ob3_status_lists" ("institution_uuid" uuid not null, "next_index" int not null, "bits" bytea not null, "version" int not null, "updated_at" timestamptz(6) not null, primary key ("institution_uuid"));`,
    );

    this.addSql(
      `create table "ob3_issuer_keys" ("uuid" uuid not null, "created_at" timestamptz(6) not null, "updated_at" timestamptz(6) not null, "tenant_uuid" uuid not null, "deleted_at" timestamptz(6) null, "institution_uuid" uuid not null, "public_key_multibase" varchar(64) not null, "sealed_secret_key" bytea not null, "retired_at" timestamptz(6) null, primary key ("uuid"));`,
    );
    this.addSql(`create index "ob3_issuer_keys_tenant_uuid_index" on "ob3_issuer_keys" ("tenant_uuid");`);
    this.addSql(`create unique index "ob3_issuer_keys_active_unique" on "ob3_issuer_keys" ("institution_uuid") where "retired_at" is null;`);

    this.addSql(
      `alter table "ob3_issuer_keys" add constraint "ob3_issuer_keys_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid");`,
    );
    this.addSql(
      `alter table "ob3_issuer_keys" add constraint "ob3_issuer_keys_institution_uuid_foreign" foreign key ("institution_uuid") references "institutions" ("uuid");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "ob3_credentials" cascade;`);
    this.addSql(`drop table if exists "ob3_status_list_credentials" cascade;`);
    this.addSql(`drop table if exists "ob3_status_lists" cascade;`);
    this.addSql(`drop table if exists "ob3_issuer_keys" cascade;`);
  }
}
