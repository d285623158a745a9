import { Migration } from '@mikro-orm/migrations';

const SCHEDULE = (row: string) =>
  `graphile_worker.add_job('webhook', json_build_object('uuid', ${row}.uuid), queue_name := 'webhook:' || ${row}.endpoint_uuid, run_at := ${row}.next_attempt_at, job_key := 'webhook:' || ${row}.uuid)`;

/**
 * Webhook deliveries move to the job queue: a delivery that becomes due-able schedules its `webhook`
 * job (in its endpoint's named queue) in the same transaction, instead of NOTIFYing the old outbox
 * channel; enabling an endpoint again schedules its waiting deliveries.
 */
export class Migration20261125222000_webhook_queue extends Migration {
  override name = 'Migration20261125222000_webhook_queue';

  override up(): void | Promise<void> {
    this.addSql(`drop trigger if exists "signal_webhook_outbox" on "webhook_deliveries";`);
    this.addSql(`drop function if exists "webhook_deliveries_signal_webhook_outbox_fn"();`);
    this
      .addSql(`create or replace function "webhook_deliveries_schedule_webhook_fn"() returns trigger as $$ begin if new.status = 'pending' and new.locked_until is null and (tg_op = 'INSERT' or old.locked_until is not null or new.next_attempt_at is distinct from old.next_attempt_at) then
          perform ${SCHEDULE('new')};
        end if;
        return null; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "schedule_webhook" AFTER INSERT OR UPDATE on "webhook_deliveries" for each ROW execute function "webhook_deliveries_schedule_webhook_fn"();`,
    );
    this
      .addSql(`create or replace function "webhook_endpoints_schedule_on_enable_fn"() returns trigger as $$ begin if old.disabled_at is not null and new.disabled_at is null then
          perform ${SCHEDULE('d')} from webhook_deliveries d where d.endpoint_uuid = new.uuid and d.status = 'pending' and d.locked_until is null;
        end if;
        return null; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "schedule_on_enable" AFTER UPDATE on "webhook_endpoints" for each ROW execute function "webhook_endpoints_schedule_on_enable_fn"();`,
    );
    // Deliveries queued before the switch get their job now.
    this.addSql(`select ${SCHEDULE('d')} from webhook_deliveries d where d.status = 'pending';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "schedule_on_enable" on "webhook_endpoints";`);
    this.addSql(`drop function if exists "webhook_endpoints_schedule_on_enable_fn"();`);
    this.addSql(`drop trigger if exists "schedule_webhook" on "webhook_deliveries";`);
    this.addSql(`drop function if exists "webhook_deliveries_schedule_webhook_fn"();`);
    this.addSql(
      `create or replace function "webhook_deliveries_signal_webhook_outbox_fn"() returns trigger as $$ begin perform pg_notify('notification_outbox', ''); return null; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "signal_webhook_outbox" AFTER INSERT on "webhook_deliveries" for each STATEMENT execute function "webhook_deliveries_signal_webhook_outbox_fn"();`,
    );
  }
}
