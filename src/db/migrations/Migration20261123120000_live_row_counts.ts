import { Migration } from '@mikro-orm/migrations';

/** The tables that lists read: the ones with a live-list index (Migration20261123083044_list_indexes). */
const LIST_TABLES = ['institutions', 'modules', 'courses', 'cohorts', 'students', 'enrollments', 'certificate_templates', 'certificates'];

/**
 * Each list table's live rows per tenant, as deltas that triggers append in the writing transaction, so
 * a list's total is the sum of a few rows instead of a count of the tenant's rows. Appending never waits
 * on another writer (no shared counter row, so no lock order between tables and no deadlock); now and
 * then a writer folds a key's deltas into one row, skipping rows another transaction holds. Inserts and
 * deletes are counted per statement (a bulk insert is one row per tenant), an update only when it moves
 * a row in or out of the live set.
 */
export class Migration20261123120000_live_row_counts extends Migration {
  override name = 'Migration20261123120000_live_row_counts';

  override up(): void | Promise<void> {
    this.addSql(`create table "live_row_counts" (
  "id" bigint generated always as identity primary key,
  "table_name" text not null,
  "tenant_uuid" uuid not null,
  "live" bigint not null
);`);
    this.addSql(`create index "live_row_counts_key_index" on "live_row_counts" ("table_name", "tenant_uuid");`);
    this.addSql(`create function "live_row_counts_fold"(counted text, tenant uuid) returns void language sql as $$
  with taken as (
    delete from live_row_counts where id in (
      select id from live_row_counts where table_name = counted and tenant_uuid = tenant for update skip locked)
    returning live)
  insert into live_row_counts (table_name, tenant_uuid, live)
  select counted, tenant, sum(live) from taken having count(*) > 0;
$$;`);
    this.addSql(`create function "live_row_counts_add"(counted text, tenant uuid, delta bigint) returns void language plpgsql as $$
begin
  insert into live_row_counts (table_name, tenant_uuid, live) values (counted, tenant, delta);
  if random() < 1.0 / 32 then
    perform live_row_counts_fold(counted, tenant);
  end if;
end $$;`);
    this.addSql(`create function "live_row_counts_inserted"() returns trigger language plpgsql as $$
begin
  perform live_row_counts_add(tg_table_name, tenant_uuid, count(*)) from new_rows where deleted_at is null group by tenant_uuid;
  return null;
end $$;`);
    this.addSql(`create function "live_row_counts_deleted"() returns trigger language plpgsql as $$
begin
  perform live_row_counts_add(tg_table_name, tenant_uuid, -count(*)) from old_rows where deleted_at is null group by tenant_uuid;
  return null;
end $$;`);
    this.addSql(`create function "live_row_counts_moved"() returns trigger language plpgsql as $$
begin
  if old.deleted_at is null then
    perform live_row_counts_add(tg_table_name, old.tenant_uuid, -1);
  end if;
  if new.deleted_at is null then
    perform live_row_counts_add(tg_table_name, new.tenant_uuid, 1);
  end if;
  return null;
end $$;`);
    this.addSql(`create function "live_row_counts_truncated"() returns trigger language plpgsql as $$
begin
  delete from live_row_counts where table_name = tg_table_name;
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
      this.addSql(`insert into live_row_counts (table_name, tenant_uuid, live)
  select '${table}', tenant_uuid, count(*) from "${table}" where deleted_at is null group by tenant_uuid;`);
    }
  }

  override down(): void | Promise<void> {
    for (const table of LIST_TABLES) {
      for (const event of ['insert', 'delete', 'update', 'truncate']) this.addSql(`drop trigger "${table}_live_count_${event}" on "${table}";`);
    }
    for (const fn of ['inserted()', 'deleted()', 'moved()', 'truncated()', 'add(text, uuid, bigint)', 'fold(text, uuid)'])
      this.addSql(`drop function "live_row_counts_${fn}";`);
    this.addSql(`drop table "live_row_counts";`);
  }
}
