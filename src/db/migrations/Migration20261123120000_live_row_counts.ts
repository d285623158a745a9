import { Migration } from '@mikro-orm/migrations';

/** The tables that lists read: the ones with a live-list index (Migration20261123083044_list_indexes). */
const LIST_TABLES = ['institutions', 'modules', 'courses', 'cohorts', 'students', 'enrollments', 'certificate_templates', 'certificates'];

/**
 * Each list table's live rows per tenant, kept by triggers in the writing transaction, so a list's
 * total is a read of at most 16 rows instead of a count of the tenant's rows. A writer adds to the
 * slot of its backend (pid mod 16), so concurrent transactions of one tenant rarely wait on one row.
 * Inserts and deletes are counted per statement (a bulk insert is one upsert per tenant); an update
 * only when it moves a row in or out of the live set.
 */
export class Migration20261123120000_live_row_counts extends Migration {
  override name = 'Migration20261123120000_live_row_counts';

  override up(): void | Promise<void> {
    this.addSql(`create table "live_row_counts" (
  "table_name" text not null,
  "tenant_uuid" uuid not null,
  "slot" smallint not null,
  "live" bigint not null,
  constraint "live_row_counts_pkey" primary key ("table_name", "tenant_uuid", "slot")
);`);
    this.addSql(`create function "live_row_counts_moved"() returns trigger language plpgsql as $$
begin
  insert into live_row_counts as kept (table_name, tenant_uuid, slot, live)
  select tg_table_name, change.tenant_uuid, pg_backend_pid() % 16, sum(change.delta)
  from (values (old.tenant_uuid, case when old.deleted_at is null then -1 else 0 end),
               (new.tenant_uuid, case when new.deleted_at is null then 1 else 0 end)) change (tenant_uuid, delta)
  group by change.tenant_uuid
  having sum(change.delta) <> 0
  on conflict (table_name, tenant_uuid, slot) do update set live = kept.live + excluded.live;
  return null;
end $$;`);
    this.addSql(`create function "live_row_counts_truncated"() returns trigger language plpgsql as $$
begin
  delete from live_row_counts where table_name = tg_table_name;
  return null;
end $$;`);
    this.addSql(`create function "live_row_counts_inserted"() returns trigger language plpgsql as $$
begin
  insert into live_row_counts as kept (table_name, tenant_uuid, slot, live)
  select tg_table_name, tenant_uuid, pg_backend_pid() % 16, count(*) from new_rows where deleted_at is null group by tenant_uuid
  on conflict (table_name, tenant_uuid, slot) do update set live = kept.live + excluded.live;
  return null;
end $$;`);
    this.addSql(`create function "live_row_counts_deleted"() returns trigger language plpgsql as $$
begin
  insert into live_row_counts as kept (table_name, tenant_uuid, slot, live)
  select tg_table_name, tenant_uuid, pg_backend_pid() % 16, -count(*) from old_rows where deleted_at is null group by tenant_uuid
  on conflict (table_name, tenant_uuid, slot) do update set live = kept.live + excluded.live;
  return null;
end $$;`);
    for (const table of LIST_TABLES) {
      this.addSql(`create trigger "${table}_live_count_insert" after insert on "${table}"
  referencing new table as new_rows for each statement execute function live_row_counts_inserted();`);
      this.addSql(`create trigger "${table}_live_count_delete" after delete on "${table}"
  referencing old table as old_rows for each statement execute function live_row_counts_deleted();`);
      this.addSql(`create trigger "${table}_live_count_update" after update of "deleted_at", "tenant_uuid" on "${table}" for each row
  when ((old.deleted_at is null) <> (new.deleted_at is null) or old.tenant_uuid <> new.tenant_uuid) execute function live_row_counts_moved();`);
      this.addSql(
        `create trigger "${table}_live_count_truncate" after truncate on "${table}" for each statement execute function live_row_counts_truncated();`,
      );
      this.addSql(`insert into live_row_counts (table_name, tenant_uuid, slot, live)
  select '${table}', tenant_uuid, 0, count(*) from "${table}" where deleted_at is null group by tenant_uuid;`);
    }
  }

  override down(): void | Promise<void> {
    for (const table of LIST_TABLES) {
      for (const event of ['insert', 'delete', 'update', 'truncate']) this.addSql(`drop trigger "${table}_live_count_${event}" on "${table}";`);
    }
    this.addSql(`drop function "live_row_counts_moved"();`);
    this.addSql(`drop function "live_row_counts_truncated"();`);
    this.addSql(`drop function "live_row_counts_inserted"();`);
    this.addSql(`drop function "live_row_counts_deleted"();`);
    this.addSql(`drop table "live_row_counts";`);
  }
}
