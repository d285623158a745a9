import type { RequestContext } from '../context/request-context.js';
import type { EngagementEvent } from './engagement.entity.js';
import { dailyEngagement } from './engagement.repository.js';
import type { CertificateEngagementView, EngagementCounts, EngagementDay } from './engagement.views.js';

const FIELD: Record<EngagementEvent, keyof EngagementCounts> = {
  page_view: 'pageViews',
  pdf_download: 'pdfDownloads',
  badge_fetch: 'badgeFetches',
  credential_fetch: 'credentialFetches',
  share_click: 'shareClicks',
  linkedin_add: 'linkedinAdds',
  wallet_claim: 'walletClaims',
};

const zero = (): EngagementCounts => ({
  pageViews: 0,
  pdfDownloads: 0,
  badgeFetches: 0,
  credentialFetches: 0,
  shareClicks: 0,
  linkedinAdds: 0,
  walletClaims: 0,
});

/** A certificate's engagement, for its institution: one indexed read of its daily rows. */
export async function certificateEngagement(ctx: RequestContext, certificateUuid: string): Promise<CertificateEngagementView> {
  const rows = await dailyEngagement(ctx.em, certificateUuid, ctx.tenant.uuid);
  const totals = zero();
  const days = new Map<string, EngagementDay>();
  for (const row of rows) {
    const field = FIELD[row.event];
    if (!field) continue;
    const day = days.get(row.day) ?? { day: row.day, ...zero() };
    day[field] += Number(row.count);
    totals[field] += Number(row.count);
    days.set(row.day, day);
  }
  return { totals, days: [...days.values()] };
}
