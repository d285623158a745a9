import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { Certificate } from '../certificates/certificate.entity.js';
import type { RequestContext } from '../context/request-context.js';
import { certificateEngagement } from './engagement.service.js';
import { CertificateEngagementView } from './engagement.views.js';

/** `Certificate.engagement`: how its public page and documents were used, counted without tracking anyone. */
@Resolver(() => Certificate)
export class CertificateEngagementResolver {
  @FieldResolver(() => CertificateEngagementView, {
    description: 'Daily counts of page views, PDF downloads, badge and credential fetches, share and LinkedIn clicks (the last 366 days; bots excluded).',
  })
  engagement(@Root() certificate: Certificate, @Ctx() ctx: RequestContext): Promise<CertificateEngagementView> {
    return certificateEngagement(ctx, certificate.uuid);
  }
}
