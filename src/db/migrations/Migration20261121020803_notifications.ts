import { Migration } from '@mikro-orm/migrations';

export class Migration20261121020803_notifications extends Migration {
  override name = 'Migration20261121020803_notifications';

  override up(): void | Promise<void> {
    this.addSql(`create type "notification_status" as enum ('pending', 'delivered', 'failed');`);
    this.addSql(
      `create table "notifications" ("uuid" uuid not null, "created_at" timestamptz(6) not null, "updated_at" timestamptz(6) not null, "tenant_uuid" uuid not null, "deleted_at" timestamptz(6) null, "kind" varchar(64) not null, "recipient_email" varchar(320) not null, "recipient_name" varchar(255) not null, "subject" text not null, "text_body" text not null, "html_body" text null, "reference_uuid" uuid null, "status" "notification_status" not null default 'pending', "attempts" int not null default 0, "next_attempt_at" timestamptz(6) not null default now(), "locked_until" timestamptz(6) null, "delivered_at" timestamptz(6) null, "last_error" text null, primary key ("uuid"));`,
    );
    this.addSql(`create index "notifications_tenant_uuid_index" on "notifications" ("tenant_uuid");`);
    this.addSql(`create index "notifications_due_index" on "notifications" ("next_attempt_at") where "status" = 'pending';`);

    this.addSql(`alter table "notifications" add constraint "notifications_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid");`);
    this.addSql(
      `create or replace function "notifications_signal_outbox_fn"() returns trigger as $$ begin perform pg_notify('notification_outbox', ''); return null; end; $$ language plpgsql;`,
    );
    this.addSql(`create trigger "signal_outbox" AFTER INSERT on "notifications" for each STATEMENT execute function "notifications_signal_outbox_fn"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "signal_outbox" on "notifications";`);
    this.addSql(`drop function if exists "notifications_signal_outbox_fn"();`);
    this.addSql(`drop table if exists "notifications" cascade;`);

    this.addSql(`drop type "notification_status";`);
  }
}
