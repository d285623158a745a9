import { Migration } from '@mikro-orm/migrations';

export class Migration20261121021022_files extends Migration {
  override name = 'Migration20261121021022_files';

  override up(): void | Promise<void> {
    this.addSql(`create table "file_chunks" ("file_uuid" uuid not null, "seq" int not null, "data" bytea not null, primary key ("file_uuid", "seq"));`);
    // PDFs and PNGs are compressed already: store chunks out of line without trying to compress them again.
    this.addSql(`alter table "file_chunks" alter column "data" set storage external;`);

    this.addSql(
      `create table "files" ("uuid" uuid not null, "created_at" timestamptz(6) not null, "updated_at" timestamptz(6) not null, "tenant_uuid" uuid not null, "deleted_at" timestamptz(6) null, "original_name" varchar(255) not null, "mime_type" varchar(100) not null, "extension" varchar(10) not null, "size" int not null, "used_at" timestamptz(6) null, "used_by_uuid" uuid null, "hash" varchar(64) not null, "storage" varchar(16) not null, primary key ("uuid"));`,
    );
    this.addSql(`create index "files_tenant_uuid_index" on "files" ("tenant_uuid");`);
    this.addSql(`create index "files_tenant_used_at_index" on "files" ("tenant_uuid", "used_at");`);
    this.addSql(`create unique index "files_tenant_hash_live_unique" on "files" ("tenant_uuid", "hash") where "deleted_at" is null;`);

    this.addSql(`alter table "files" add constraint "files_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "file_chunks" cascade;`);
    this.addSql(`drop table if exists "files" cascade;`);
  }
}
