import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../logger.js';
import { engagementEvents } from '../metrics/domain-metrics.js';
import { isBot } from './bots.js';
import type { EngagementEvent } from './engagement.entity.js';

// One statement an event: the certificate's tenant is read in the insert itself, the day is UTC's.
// A uuid that names no issued certificate inserts nothing.
const COUNT_CERTIFICATE = `insert into "certificate_engagement" ("certificate_uuid", "tenant_uuid", "day", "event", "count")
  select c."uuid", c."tenant_uuid", (now() at time zone 'utc')::date, ?, 1 from "certificates" c
  where c."uuid" = ? and c."status" <> 'draft'
  on conflict ("certificate_uuid", "day", "event") do update set "count" = "certificate_engagement"."count" + 1`;

// A signed PDF download is known by its file: the certificate is the one that lists it as its certificate or transcript.
const COUNT_DOCUMENT = `insert into "certificate_engagement" ("certificate_uuid", "tenant_uuid", "day", "event", "count")
  select d."certificate_uuid", d."tenant_uuid", (now() at time zone 'utc')::date, 'pdf_download', 1 from "certificate_documents" d
  where d."file_uuid" = ? and d."type" in ('certificate', 'transcript') and d."deleted_at" is null
  limit 1
  on conflict ("certificate_uuid", "day", "event") do update set "count" = "certificate_engagement"."count" + 1`;

/** What a public read carries for counting: a fresh EntityManager, the log, the user agent. */
export interface EngagementSource {
  em: EntityManager;
  logger: Logger;
  userAgent: string | undefined;
}

function record(source: EngagementSource, event: EngagementEvent, statement: string, params: unknown[]): void {
  if (isBot(source.userAgent)) return;
  // Never awaited by the answer and never its failure: a count lost is better than a page not shown.
  source.em
    .fork()
    .execute<{ affectedRows?: number }>(statement, params, 'run')
    .then((result) => {
      if (result.affectedRows) engagementEvents.inc({ event });
    })
    .catch((error: unknown) => source.logger.warn({ err: error, event }, 'engagement not counted'));
}

/** Counts one event of a certificate (page view, badge or credential fetch, share click). */
export function countEngagement(source: EngagementSource, certificateUuid: string, event: Exclude<EngagementEvent, 'pdf_download' | 'wallet_claim'>): void {
  record(source, event, COUNT_CERTIFICATE, [event, certificateUuid]);
}

/**
 * Counts a credential a wallet received, in the caller's transaction: the claim proved possession of
 * a key (no bot to filter), and it is recorded with the claim or not at all.
 */
export async function countWalletClaim(em: EntityManager, certificateUuid: string): Promise<void> {
  const result = await em.execute<{ affectedRows?: number }>(COUNT_CERTIFICATE, ['wallet_claim', certificateUuid], 'run');
  if (result.affectedRows) engagementEvents.inc({ event: 'wallet_claim' });
}

/** Counts a download of a file when it is a certificate's signed PDF (certificate or transcript). */
export function countDocumentDownload(source: EngagementSource, fileUuid: string): void {
  record(source, 'pdf_download', COUNT_DOCUMENT, [fileUuid]);
}
