import { Migration } from '@mikro-orm/migrations';

const JOB = `graphile_worker.add_job('webhook', json_build_object('uuid', new.uuid), queue_name := 'webhook:' || new.endpoint_uuid, run_at := new.next_attempt_at, job_key := 'webhook:' || new.uuid`;
const BACKLOG_PRIORITY = `case when (select count(*) from (select 1 from webhook_deliveries p where p.endpoint_uuid = new.endpoint_uuid and p.status = 'pending' limit 11) backlog) > 10 then 1 else 0 end`;

/**
 * A delivery whose endpoint already has its share of pending deliveries is scheduled behind other
 * endpoints' (src/webhooks/webhook-schedule.ts, `backlogPriority`): the schedule trigger's function
 * takes the priority.
 */
export class Migration20261126013909_webhook_backlog_priority extends Migration {
  override name = 'Migration20261126013909_webhook_backlog_priority';

  override up(): void | Promise<void> {
    this.addSql(this.scheduleFunction(`${JOB}, priority := ${BACKLOG_PRIORITY})`));
  }

  override down(): void | Promise<void> {
    this.addSql(this.scheduleFunction(`${JOB})`));
  }

  private scheduleFunction(schedule: string): string {
    return `create or replace function "webhook_deliveries_schedule_webhook_fn"() returns trigger as $$ begin if new.status = 'pending' and new.locked_until is null and (tg_op = 'INSERT' or old.locked_until is not null or new.next_attempt_at is distinct from old.next_attempt_at) then
          perform ${schedule};
        end if;
        return null; end; $$ language plpgsql;`;
  }
}
