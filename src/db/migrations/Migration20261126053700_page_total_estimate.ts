import { Migration } from '@mikro-orm/migrations';

/**
 * The planner's row estimate of a query, for list totals past the exact-count limit
 * (db/page-statement.ts): `EXPLAIN` only, so the query is planned, never run. The page statement
 * passes a select whose values it quoted itself with `format('%L')`.
 * Volatile (the default): PostgreSQL allows EXPLAIN only there.
 */
export class Migration20261126053700_page_total_estimate extends Migration {
  override name = 'Migration20261126053700_page_total_estimate';

  override up(): void | Promise<void> {
    this.addSql(`create function "page_total_estimate"(query text) returns bigint language plpgsql as $$
declare
  plan json;
begin
  execute 'explain (format json) ' || query into plan;
  return (plan -> 0 -> 'Plan' ->> 'Plan Rows')::bigint;
end $$;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop function "page_total_estimate"(text);`);
  }
}
