import { Migration } from '@mikro-orm/migrations';

export class Migration20261121015830_foundation extends Migration {
  override name = 'Migration20261121015830_foundation';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "tenants" ("uuid" uuid not null, "identifier" varchar(63) not null, "name" varchar(255) not null, "created_at" timestamptz(6) not null, primary key ("uuid"));`,
    );
    this.addSql(`alter table "tenants" add constraint "tenants_identifier_unique" unique ("identifier");`);

    this.addSql(
      `create table "oauth_clients" ("uuid" uuid not null, "tenant_uuid" uuid not null, "client_id" varchar(100) not null, "secret_hash" varchar(64) not null, "name" varchar(255) not null, "created_at" timestamptz(6) not null, "revoked_at" timestamptz(6) null, primary key ("uuid"));`,
    );
    this.addSql(`create index "oauth_clients_tenant_uuid_index" on "oauth_clients" ("tenant_uuid");`);
    this.addSql(`alter table "oauth_clients" add constraint "oauth_clients_client_id_unique" unique ("client_id");`);

    this.addSql(
      `create table "oauth_access_tokens" ("uuid" uuid not null, "token_hash" varchar(64) not null, "client_uuid" uuid not null, "created_at" timestamptz(6) not null, "expires_at" timestamptz(6) not null, "revoked_at" timestamptz(6) null, primary key ("uuid"));`,
    );
    this.addSql(`alter table "oauth_access_tokens" add constraint "oauth_access_tokens_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "oauth_access_tokens_client_uuid_index" on "oauth_access_tokens" ("client_uuid");`);
    this.addSql(`create index "oauth_access_tokens_expires_at_index" on "oauth_access_tokens" ("expires_at");`);

    this.addSql(`alter table "oauth_clients" add constraint "oauth_clients_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid");`);

    this.addSql(
      `alter table "oauth_access_tokens" add constraint "oauth_access_tokens_client_uuid_foreign" foreign key ("client_uuid") references "oauth_clients" ("uuid");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "oauth_clients" drop constraint "oauth_clients_tenant_uuid_foreign";`);
    this.addSql(`alter table "oauth_access_tokens" drop constraint "oauth_access_tokens_client_uuid_foreign";`);

    this.addSql(`drop table if exists "tenants" cascade;`);
    this.addSql(`drop table if exists "oauth_clients" cascade;`);
    this.addSql(`drop table if exists "oauth_access_tokens" cascade;`);
  }
}
