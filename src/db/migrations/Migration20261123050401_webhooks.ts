import { Migration } from '@mikro-orm/migrations';

export class Migration20261123050401_webhooks extends Migration {
  override name = 'Migration20261123050401_webhooks';

  override up(): void | Promise<void> {
    this.addSql(`create type "webhook_delivery_status" as enum ('pending', 'delivered', 'failed');`);
    this.addSql(
      `create table "webhook_endpoints" ("uuid" uuid not null, "created_at" timestamptz(6) not null, "updated_at" timestamptz(6) not null, "tenant_uuid" uuid not null, "deleted_at" timestamptz(6) null, "url" varchar(2048) not null, "description" varchar(255) null, "events" text[] not null, "signing_secret" varchar(100) not null, "disabled_at" timestamptz(6) null, "disabled_reason" text null, primary key ("uuid"));`,
    );
    this.addSql(`create index "webhook_endpoints_tenant_uuid_index" on "webhook_endpoints" ("tenant_uuid");`);

    this.addSql(
      `create table "webhook_messages" ("uuid" uuid not null, "created_at" timestamptz(6) not null, "updated_at" timestamptz(6) not null, "tenant_uuid" uuid not null, "deleted_at" timestamptz(6) null, "event_type" varchar(64) not null, "subject_uuid" uuid not null, "body" text not null, primary key ("uuid"));`,
    );
    this.addSql(`create index "webhook_messages_tenant_uuid_index" on "webhook_messages" ("tenant_uuid");`);

    this.addSql(
      `create table "webhook_deliveries" ("uuid" uuid not null, "created_at" timestamptz(6) not null, "updated_at" timestamptz(6) not null, "tenant_uuid" uuid not null, "deleted_at" timestamptz(6) null, "endpoint_uuid" uuid not null, "message_uuid" uuid not null, "event_type" varchar(64) not null, "subject_uuid" uuid not null, "enqueued_at" timestamptz(6) not null default clock_timestamp(), "status" "webhook_delivery_status" not null default 'pending', "attempt_count" int not null default 0, "next_attempt_at" timestamptz(6) not null default now(), "locked_until" timestamptz(6) null, "delivered_at" timestamptz(6) null, "last_response_status" int null, "last_error" text null, "attempt_log" jsonb not null default '[]', primary key ("uuid"));`,
    );
    this.addSql(`create index "webhook_deliveries_tenant_uuid_index" on "webhook_deliveries" ("tenant_uuid");`);
    this.addSql(`create index "webhook_deliveries_endpoint_uuid_index" on "webhook_deliveries" ("endpoint_uuid");`);
    this.addSql(`create index "webhook_deliveries_message_uuid_index" on "webhook_deliveries" ("message_uuid");`);
    this.addSql(
      `create index "webhook_deliveries_order_index" on "webhook_deliveries" ("endpoint_uuid", "subject_uuid", "enqueued_at") where "status" = 'pending';`,
    );
    this.addSql(`create index "webhook_deliveries_due_index" on "webhook_deliveries" ("next_attempt_at") where "status" = 'pending';`);

    this.addSql(
      `alter table "webhook_endpoints" add constraint "webhook_endpoints_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid");`,
    );

    this.addSql(
      `alter table "webhook_messages" add constraint "webhook_messages_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid");`,
    );
    this
      .addSql(`create or replace function "webhook_messages_fan_out_webhook_message_fn"() returns trigger as $$ begin insert into webhook_deliveries (uuid, created_at, updated_at, tenant_uuid, endpoint_uuid, message_uuid, event_type, subject_uuid, enqueued_at)
        select gen_random_uuid(), now(), now(), new.tenant_uuid, e.uuid, new.uuid, new.event_type, new.subject_uuid, clock_timestamp()
        from webhook_endpoints e
        where e.tenant_uuid = new.tenant_uuid and e.deleted_at is null and e.disabled_at is null and new.event_type = any(e.events);         return null; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "fan_out_webhook_message" AFTER INSERT on "webhook_messages" for each ROW execute function "webhook_messages_fan_out_webhook_message_fn"();`,
    );

    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid");`,
    );
    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_endpoint_uuid_foreign" foreign key ("endpoint_uuid") references "webhook_endpoints" ("uuid");`,
    );
    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_message_uuid_foreign" foreign key ("message_uuid") references "webhook_messages" ("uuid");`,
    );
    this.addSql(
      `create or replace function "webhook_deliveries_signal_webhook_outbox_fn"() returns trigger as $$ begin perform pg_notify('notification_outbox', ''); return null; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "signal_webhook_outbox" AFTER INSERT on "webhook_deliveries" for each STATEMENT execute function "webhook_deliveries_signal_webhook_outbox_fn"();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_endpoint_uuid_foreign";`);
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_message_uuid_foreign";`);

    this.addSql(`drop table if exists "webhook_endpoints" cascade;`);
    this.addSql(`drop trigger if exists "fan_out_webhook_message" on "webhook_messages";`);
    this.addSql(`drop function if exists "webhook_messages_fan_out_webhook_message_fn"();`);
    this.addSql(`drop table if exists "webhook_messages" cascade;`);
    this.addSql(`drop trigger if exists "signal_webhook_outbox" on "webhook_deliveries";`);
    this.addSql(`drop function if exists "webhook_deliveries_signal_webhook_outbox_fn"();`);
    this.addSql(`drop table if exists "webhook_deliveries" cascade;`);

    this.addSql(`drop type "webhook_delivery_status";`);
  }
}
