import { type Opt } from '@mikro-orm/core';
import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/** What is counted about a certificate's public life; one row a certificate, day and event. */
export const ENGAGEMENT_EVENTS = ['page_view', 'pdf_download', 'badge_fetch', 'credential_fetch', 'share_click', 'linkedin_add', 'wallet_claim'] as const;
export type EngagementEvent = (typeof ENGAGEMENT_EVENTS)[number];

/**
 * How often a certificate's public page and documents were used on one UTC day: counts only, no
 * address, no cookie, no user agent (docs/public-pages.md). Written by one upsert an event
 * (engagement-recorder.ts, engagement.repository.ts), read by the certificate's owner.
 */
@Entity({ tableName: 'certificate_engagement' })
@Index({ name: 'certificate_engagement_tenant_index', properties: ['tenantUuid'] })
export class CertificateEngagement {
  @PrimaryKey({ type: 'uuid' })
  certificateUuid!: string;

  @PrimaryKey({ type: 'date' })
  day!: string;

  @PrimaryKey({ length: 24 })
  event!: EngagementEvent;

  @Property({ type: 'uuid' })
  tenantUuid!: string;

  @Property({ type: 'integer' })
  count: number & Opt = 0;
}
