/**
 * The list tables whose live rows per tenant triggers keep counted in `live_row_counts`
 * as deltas (Migration20261123120000_live_row_counts): a list over one of these with no filter but the tenant
 * scope reads its total there instead of counting rows. test/live-counts.test.ts checks this set
 * against the triggers of a migrated database and the counts against `count(*)`.
 */
export const LIVE_COUNTED_TABLES: ReadonlySet<string> = new Set([
  'institutions',
  'modules',
  'courses',
  'cohorts',
  'students',
  'enrollments',
  'certificate_templates',
  'certificates',
]);

/** The live rows of `table` for the tenant bound at `tenantParameter` (e.g. `$1`), as a scalar subquery. */
export function liveCountSql(table: string, tenantParameter: string): string {
  if (!LIVE_COUNTED_TABLES.has(table)) throw new Error(`${table} has no live row count`);
  return `(select coalesce(sum(live), 0) from live_row_counts where table_name = '${table}' and tenant_uuid = ${tenantParameter}::uuid)`;
}
