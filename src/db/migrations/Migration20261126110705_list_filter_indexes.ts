import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 31: every filterable column of a list that no index served gets a live-row index after the
 * tenant, ending in uuid (`LiveFilterIndexes` on the entities), so a filter matching few rows never
 * reads the tenant's whole list (test/list-filter-indexes.test.ts plans each filter on 100,000 rows).
 */
const FILTERED: [table: string, columns: string[]][] = [
  ['institutions', ['name', 'country', 'tax_id', 'status', 'created_at', 'updated_at']],
  ['modules', ['code', 'name', 'workload', 'credits', 'modality', 'level', 'created_at', 'updated_at']],
  ['courses', ['name', 'code', 'workload', 'created_at', 'updated_at']],
  ['module_groups', ['name', 'order', 'created_at', 'updated_at']],
  ['cohorts', ['code', 'modality', 'start_date', 'end_date', 'created_at', 'updated_at']],
  ['students', ['gender', 'social_name', 'updated_at']],
  ['enrollments', ['grade', 'enrolled_at', 'completed_at', 'updated_at']],
  ['certificate_templates', ['name', 'version', 'status', 'created_at', 'updated_at']],
  ['certificates', ['status', 'expires_at', 'revoked_at', 'blockchain_tx_hash', 'updated_at']],
  ['files', ['original_name', 'mime_type', 'extension', 'size', 'created_at', 'updated_at']],
  ['portfolio_pages', ['created_at', 'updated_at']],
  ['portfolio_items', ['certificate_uuid', 'sort_order', 'created_at', 'updated_at']],
  ['jobs', ['kind', 'finished_at', 'updated_at']],
];

const INDEXES = FILTERED.flatMap(([table, columns]) => columns.map((column) => ({ name: `${table}_${column}_filter_index`, table, column })));

export class Migration20261126110705_list_filter_indexes extends Migration {
  override name = 'Migration20261126110705_list_filter_indexes';

  override up(): void | Promise<void> {
    for (const { name, table, column } of INDEXES) {
      this.addSql(`create index "${name}" on "${table}" ("tenant_uuid", "${column}", "uuid") where "deleted_at" is null;`);
    }
  }

  override down(): void | Promise<void> {
    for (const { name } of INDEXES) this.addSql(`drop index "${name}";`);
  }
}
