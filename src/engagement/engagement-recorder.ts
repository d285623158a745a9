import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../logger.js';
import { engagementEvents } from '../metrics/domain-metrics.js';
import { isBot } from './bots.js';
import type { EngagementEvent } from './engagement.entity.js';
import { countCertificateEvent, countSignedPdfDownload } from './engagement.repository.js';

/** What a public read carries for counting: a fresh EntityManager, the log, the user agent. */
export interface EngagementSource {
  em: EntityManager;
  logger: Logger;
  userAgent: string | undefined;
}

function record(source: EngagementSource, event: EngagementEvent, count: (em: EntityManager) => Promise<number>): void {
  if (isBot(source.userAgent)) return;
  // Never awaited by the answer and never its failure: a count lost is better than a page not shown.
  count(source.em.fork())
    .then((counted) => {
      if (counted) engagementEvents.inc({ event });
    })
    .catch((error: unknown) => source.logger.warn({ err: error, event }, 'engagement not counted'));
}

/** Counts one event of a certificate (page view, badge or credential fetch, share click). */
export function countEngagement(source: EngagementSource, certificateUuid: string, event: Exclude<EngagementEvent, 'pdf_download' | 'wallet_claim'>): void {
  record(source, event, (em) => countCertificateEvent(em, event, certificateUuid));
}

/**
 * Counts a credential a wallet received, in the caller's transaction: the claim proved possession of
 * a key (no bot to filter), and it is recorded with the claim or not at all.
 */
export async function countWalletClaim(em: EntityManager, certificateUuid: string): Promise<void> {
  if (await countCertificateEvent(em, 'wallet_claim', certificateUuid)) engagementEvents.inc({ event: 'wallet_claim' });
}

/** Counts a download of a file when it is a certificate's signed PDF (certificate or transcript). */
export function countDocumentDownload(source: EngagementSource, fileUuid: string): void {
  record(source, 'pdf_download', (em) => countSignedPdfDownload(em, fileUuid));
}
