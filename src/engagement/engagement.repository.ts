import type { EntityManager } from '@mikro-orm/postgresql';
import type { EngagementEvent } from './engagement.entity.js';

// One statement an event: the certificate's tenant is read in the insert itself, the day is UTC's.
// A uuid that names no issued certificate inserts nothing.
const COUNT_CERTIFICATE = `insert into "certificate_engagement" ("certificate_uuid", "tenant_uuid", "day", "event", "count")
  select c."uuid", c."tenant_uuid", (now() at time zone 'utc')::date, ?, 1 from "certificates" c
  where c."uuid" = ? and c."status" <> 'draft'
  on conflict ("certificate_uuid", "day", "event") do update set "count" = "certificate_engagement"."count" + 1`;

/** Counts one event of a certificate today; returns how many rows it wrote (0: no issued certificate has this uuid). */
export async function countCertificateEvent(em: EntityManager, event: EngagementEvent, certificateUuid: string): Promise<number> {
  const result = await em.execute<{ affectedRows?: number }>(COUNT_CERTIFICATE, [event, certificateUuid], 'run');
  return result.affectedRows ?? 0;
}

// A signed PDF download is known by its file: the certificate is the one that lists it as its certificate or transcript.
const COUNT_DOCUMENT = `insert into "certificate_engagement" ("certificate_uuid", "tenant_uuid", "day", "event", "count")
  select d."certificate_uuid", d."tenant_uuid", (now() at time zone 'utc')::date, 'pdf_download', 1 from "certificate_documents" d
  where d."file_uuid" = ? and d."type" in ('certificate', 'transcript') and d."deleted_at" is null
  limit 1
  on conflict ("certificate_uuid", "day", "event") do update set "count" = "certificate_engagement"."count" + 1`;

/** Counts a download of this file today when it is a certificate's signed PDF; returns how many rows it wrote. */
export async function countSignedPdfDownload(em: EntityManager, fileUuid: string): Promise<number> {
  const result = await em.execute<{ affectedRows?: number }>(COUNT_DOCUMENT, [fileUuid], 'run');
  return result.affectedRows ?? 0;
}

const MAX_DAYS = 366;

// The certificate was read in the caller's tenant; the tenant is repeated so no row of another can answer.
const DAILY = `select to_char(e."day", 'YYYY-MM-DD') as day, e."event", e."count" from "certificate_engagement" e
  where e."certificate_uuid" = ? and e."tenant_uuid" = ?
    and e."day" > (now() at time zone 'utc')::date - ${MAX_DAYS}
  order by e."day"`;

/** A certificate's counts per day and event over the last year, oldest first. */
export async function dailyEngagement(
  em: EntityManager,
  certificateUuid: string,
  tenantUuid: string,
): Promise<{ day: string; event: EngagementEvent; count: number }[]> {
  return em.execute<{ day: string; event: EngagementEvent; count: number }[]>(DAILY, [certificateUuid, tenantUuid]);
}
