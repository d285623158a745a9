import type { EntityManager } from '@mikro-orm/postgresql';
import type { Course } from './course.entity.js';
import { attachedModuleRows } from './course.repository.js';
import type { TranscriptData } from '../documents/transcript-content.js';
import { compareAttachments } from './module-order.js';

/** A module as a course lists it on the credentials issued for it: its position, the module, its group. */
export interface AttachedModule {
  order: number;
  module: { uuid: string; code: string | null; name: string; workload: number | null; credits: number | null };
  group: { uuid: string; name: string; order: number | null } | null;
}

/**
 * A course's modules in display order (module-order.ts), for the documents and badges issued for it:
 * one statement and plain rows, no entities.
 */
export async function attachedModules(em: EntityManager, course: Course): Promise<AttachedModule[]> {
  const rows = await attachedModuleRows(em, course.uuid, course.tenant.uuid);
  return rows
    .map((row) => ({
      order: row.order,
      module: { uuid: row.uuid, code: row.code, name: row.name, workload: row.workload, credits: row.credits },
      group: row.group_uuid ? { uuid: row.group_uuid, name: row.group_name!, order: row.group_order } : null,
    }))
    .sort(compareAttachments);
}

/** The modules and groups as the transcript lists them (issuance's PDF and the CLR 2.0 credential alike). */
export function transcriptListing(attachments: AttachedModule[]): Pick<TranscriptData, 'moduleGroups' | 'modules'> {
  const groups = new Map(attachments.flatMap(({ group }) => (group ? [[group.uuid, group] as const] : [])));
  return {
    moduleGroups: [...groups.values()].map((group) => ({ uuid: group.uuid, name: group.name, order: group.order })),
    modules: attachments.map(({ module, group, order }) => ({ ...module, order, groupUuid: group?.uuid ?? null })),
  };
}
