import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 34 (bench/growth.ts): the documented sorts, alone and with the filters lists use most, as
 * live-row indexes ending in uuid (the tie-breaker of every list order), so a page reads its rows in
 * index order and stops at its limit instead of sorting the tenant's matching rows. A descending sort
 * scans backwards (an incremental sort orders only ties by uuid). Named `*_growth_*` (the filter
 * indexes of keyset paging are separate).
 */
const INDEXES: [name: string, table: string, columns: string][] = [
  ['enrollments_growth_created_index', 'enrollments', '"tenant_uuid", "created_at", "uuid"'],
  ['enrollments_growth_course_created_index', 'enrollments', '"tenant_uuid", "course_uuid", "created_at", "uuid"'],
  ['enrollments_growth_course_index', 'enrollments', '"tenant_uuid", "course_uuid", "uuid"'],
  ['enrollments_growth_status_index', 'enrollments', '"tenant_uuid", "completion_status", "uuid"'],
  ['students_growth_name_index', 'students', '"tenant_uuid", "name", "uuid"'],
  ['students_growth_created_index', 'students', '"tenant_uuid", "created_at", "uuid"'],
  ['certificates_growth_created_index', 'certificates', '"tenant_uuid", "created_at", "uuid"'],
  ['certificates_growth_issued_index', 'certificates', '"tenant_uuid", "issued_at", "uuid"'],
];

export class Migration20261126053800_growth_sort_indexes extends Migration {
  override name = 'Migration20261126053800_growth_sort_indexes';

  override up(): void | Promise<void> {
    for (const [name, table, columns] of INDEXES) this.addSql(`create index "${name}" on "${table}" (${columns}) where "deleted_at" is null;`);
  }

  override down(): void | Promise<void> {
    for (const [name] of INDEXES) this.addSql(`drop index "${name}";`);
  }
}
