import { Migration } from '@mikro-orm/migrations';

/**
 * E-mails move to the job queue (graphile-worker, whose schema the migration step installs first): a
 * notification that becomes due-able schedules its `email` job in the same transaction, instead of
 * NOTIFYing the old outbox channel.
 */
export class Migration20261125220210_email_queue extends Migration {
  override name = 'Migration20261125220210_email_queue';

  override up(): void | Promise<void> {
    this.addSql(`drop trigger if exists "signal_outbox" on "notifications";`);
    this.addSql(`drop function if exists "notifications_signal_outbox_fn"();`);
    this
      .addSql(`create or replace function "notifications_schedule_email_fn"() returns trigger as $$ begin if new.status = 'pending' and new.locked_until is null and (tg_op = 'INSERT' or old.locked_until is not null or new.next_attempt_at is distinct from old.next_attempt_at) then
          perform graphile_worker.add_job('email', json_build_object('uuid', new.uuid), run_at := new.next_attempt_at, job_key := 'email:' || new.uuid);
        end if;
        return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "schedule_email" AFTER INSERT OR UPDATE on "notifications" for each ROW execute function "notifications_schedule_email_fn"();`);
    // Notifications queued before the switch get their job now.
    this.addSql(
      `select graphile_worker.add_job('email', json_build_object('uuid', uuid), run_at := next_attempt_at, job_key := 'email:' || uuid) from notifications where status = 'pending';`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "schedule_email" on "notifications";`);
    this.addSql(`drop function if exists "notifications_schedule_email_fn"();`);
    this.addSql(
      `create or replace function "notifications_signal_outbox_fn"() returns trigger as $$ begin perform pg_notify('notification_outbox', ''); return null; end; $$ language plpgsql;`,
    );
    this.addSql(`create trigger "signal_outbox" AFTER INSERT on "notifications" for each STATEMENT execute function "notifications_signal_outbox_fn"();`);
  }
}
