import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlRows } from '../db/sql-rows.js';

/** A module attached to a course, with its group, as one row. */
export interface AttachedModuleRow {
  uuid: string;
  order: number;
  code: string | null;
  name: string;
  workload: number | null;
  credits: number | null;
  group_uuid: string | null;
  group_name: string | null;
  group_order: number | null;
}

// The attachment's live rows in the course's own tenant; modules and groups as they are, deleted or
// not (the attachment is what counts). Its tenant is the course's: the course was read in the caller's
// scope (the request's tenant, or across tenants for the public badge URLs).
const ATTACHED_MODULES = `select a."order", m."uuid", m."code", m."name", m."workload", m."credits",
    g."uuid" as group_uuid, g."name" as group_name, g."order" as group_order
  from "course_modules" a
  join "modules" m on m."uuid" = a."module_uuid"
  left join "module_groups" g on g."uuid" = a."group_uuid"
  where a."course_uuid" = $1::uuid and a."tenant_uuid" = $2::uuid and a."deleted_at" is null
  order by a."order", a."uuid"`;

/** The course's attached modules as plain rows, in attachment order. */
export async function attachedModuleRows(em: EntityManager, courseUuid: string, tenantUuid: string): Promise<AttachedModuleRow[]> {
  return sqlRows<AttachedModuleRow>(em, ATTACHED_MODULES, [courseUuid, tenantUuid]);
}
