import type { EntityManager } from '@mikro-orm/postgresql';
import { queryPrepared } from '../db/prepared.js';
import { tenantScopeOf } from '../db/tenant-scope.js';
import { CourseModule } from './course-module.entity.js';

/** A module as a course lists it on the documents issued for it: its position, the module, its group. */
export interface AttachedModule {
  order: number;
  module: { code: string | null; name: string; workload: number | null; credits: number | null };
  group: { uuid: string; name: string; order: number | null } | null;
}

interface AttachedRow {
  order: number;
  code: string | null;
  name: string;
  workload: number | null;
  credits: number | null;
  group_uuid: string | null;
  group_name: string | null;
  group_order: number | null;
}

const statements = new Map<string, string>();

/**
 * The course's live attachments in the tenant, by position, each with its module and group (read
 * even when deleted: the attachment is what counts), for display only: one prepared statement and
 * plain rows, no entities. Outside a transaction only (it runs on the pool, as issuance reads
 * before its transaction opens).
 */
export async function attachedModules(em: EntityManager, courseUuid: string): Promise<AttachedModule[]> {
  const scope = tenantScopeOf(em, CourseModule, { live: true });
  const conditions = scope.conditions('a', 2).join(' and ');
  let text = statements.get(conditions);
  if (!text) {
    text = `select a."order", m."code", m."name", m."workload", m."credits", g."uuid" as group_uuid, g."name" as group_name, g."order" as group_order
      from "course_modules" a join "modules" m on m."uuid" = a."module_uuid" left join "module_groups" g on g."uuid" = a."group_uuid"
      where a."course_uuid" = $1::uuid and ${conditions}
      order by a."order", a."uuid"`;
    statements.set(conditions, text);
  }
  const rows = await queryPrepared<AttachedRow>(em, text, [courseUuid, ...scope.values]);
  return rows.map((row) => ({
    order: row.order,
    module: { code: row.code, name: row.name, workload: row.workload, credits: row.credits },
    group: row.group_uuid ? { uuid: row.group_uuid, name: row.group_name!, order: row.group_order } : null,
  }));
}
