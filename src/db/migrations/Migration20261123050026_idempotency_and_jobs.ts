import { Migration } from '@mikro-orm/migrations';

export class Migration20261123050026_idempotency_and_jobs extends Migration {
  override name = 'Migration20261123050026_idempotency_and_jobs';

  override up(): void | Promise<void> {
    this.addSql(`create type "job_status" as enum ('queued', 'running', 'completed');`);
    this.addSql(
      `create table "idempotency_keys" ("tenant_uuid" uuid not null, "client_id" varchar(255) not null, "key" varchar(255) not null, "fingerprint" varchar(64) not null, "response_status" int null, "response_body" text null, "response_content_type" text null, "response_location" text null, "locked_until" timestamptz(6) null, "created_at" timestamptz(6) not null, "expires_at" timestamptz(6) not null, primary key ("tenant_uuid", "client_id", "key"));`,
    );
    this.addSql(`create index "idempotency_keys_expires_at_index" on "idempotency_keys" ("expires_at");`);

    this.addSql(
      `create table "jobs" ("uuid" uuid not null, "created_at" timestamptz(6) not null, "updated_at" timestamptz(6) not null, "tenant_uuid" uuid not null, "deleted_at" timestamptz(6) null, "kind" varchar(64) not null, "status" "job_status" not null default 'queued', "total" int not null, "done" int not null default 0, "failed" int not null default 0, "client_id" varchar(255) not null, "payload" jsonb not null, "results" jsonb not null, "locked_until" timestamptz(6) null, "finished_at" timestamptz(6) null, primary key ("uuid"));`,
    );
    this.addSql(`create index "jobs_tenant_uuid_index" on "jobs" ("tenant_uuid");`);
    this.addSql(`create index "jobs_status_index" on "jobs" ("status", "created_at");`);

    this.addSql(`alter table "jobs" add constraint "jobs_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "idempotency_keys" cascade;`);
    this.addSql(`drop table if exists "jobs" cascade;`);

    this.addSql(`drop type "job_status";`);
  }
}
