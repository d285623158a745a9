import { Migration } from '@mikro-orm/migrations';

const JOB = `graphile_worker.add_job('webhook', json_build_object('uuid', new.uuid), queue_name := 'webhook:' || new.endpoint_uuid, run_at := new.next_attempt_at, job_key := 'webhook:' || new.uuid, priority := case when (select count(*) from (select 1 from webhook_deliveries p where p.endpoint_uuid = new.endpoint_uuid and p.status = 'pending' limit 11) backlog) > 10 then 1 else 0 end)`;

/**
 * A delivery queued while its tenant has parked deliveries is parked at once, with no job
 * (src/webhooks/webhook-schedule.ts, `PARK_BEHIND_TENANT`); the schedule trigger skips a parked row.
 * Parking schedules no fallback job any more (`WAKE_STRANDED` is the safety net); jobs scheduled so are
 * left to run, they only claim and park again.
 */
export class Migration20261128190944_webhook_park_at_insert extends Migration {
  override name = 'Migration20261128190944_webhook_park_at_insert';

  override up(): void | Promise<void> {
    this
      .addSql(`create or replace function "webhook_deliveries_park_behind_tenant_fn"() returns trigger as $$ begin if new.status = 'pending' and new.parked_at is null and exists (
      select 1 from webhook_deliveries p where p.tenant_uuid = new.tenant_uuid and p.status = 'pending' and p.parked_at is not null) then
    new.parked_at := now();
  end if;
  return new; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "park_behind_tenant" BEFORE INSERT on "webhook_deliveries" for each ROW execute function "webhook_deliveries_park_behind_tenant_fn"();`,
    );
    this.addSql(this.scheduleFunction(`new.status = 'pending' and new.locked_until is null and new.parked_at is null`));
  }

  override down(): void | Promise<void> {
    this.addSql(this.scheduleFunction(`new.status = 'pending' and new.locked_until is null`));
    this.addSql(`drop trigger if exists "park_behind_tenant" on "webhook_deliveries";`);
    this.addSql(`drop function if exists "webhook_deliveries_park_behind_tenant_fn"();`);
  }

  private scheduleFunction(when: string): string {
    return `create or replace function "webhook_deliveries_schedule_webhook_fn"() returns trigger as $$ begin if ${when} and (tg_op = 'INSERT' or old.locked_until is not null or new.next_attempt_at is distinct from old.next_attempt_at) then
          perform ${JOB};
        end if;
        return null; end; $$ language plpgsql;`;
  }
}
