import { Migration } from '@mikro-orm/migrations';

/**
 * Background jobs (certificate batches) move to the job queue: a job queued, or handed back by its
 * worker, schedules its queue job (task: its kind) in the same transaction, instead of being polled for.
 */
export class Migration20261125223000_job_queue extends Migration {
  override name = 'Migration20261125223000_job_queue';

  override up(): void | Promise<void> {
    this
      .addSql(`create or replace function "jobs_schedule_job_fn"() returns trigger as $$ begin if new.status <> 'completed' and new.deleted_at is null and new.locked_until is null and (tg_op = 'INSERT' or old.locked_until is not null) then
          perform graphile_worker.add_job(new.kind, json_build_object('uuid', new.uuid), job_key := 'job:' || new.uuid);
        end if;
        return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "schedule_job" AFTER INSERT OR UPDATE on "jobs" for each ROW execute function "jobs_schedule_job_fn"();`);
    // Jobs waiting at the switch get their queue job now (one still held by a live worker is handed back by `leases.expired`).
    this.addSql(
      `select graphile_worker.add_job(kind, json_build_object('uuid', uuid), job_key := 'job:' || uuid) from jobs where status <> 'completed' and deleted_at is null and locked_until is null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "schedule_job" on "jobs";`);
    this.addSql(`drop function if exists "jobs_schedule_job_fn"();`);
  }
}
