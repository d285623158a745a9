import { CertificateBadgeResolver, InstitutionBadgeResolver } from '../badges/badge.resolver.js';
import { CredentialOfferResolver } from '../wallets/credential-offer.resolver.js';
import { CertificateResolver } from '../certificates/certificate.resolver.js';
import { CohortResolver } from '../courses/cohort.resolver.js';
import { CourseModuleResolver, CourseResolver } from '../courses/course.resolver.js';
import { ModuleGroupResolver } from '../courses/module-group.resolver.js';
import { CertificateEngagementResolver } from '../engagement/engagement.resolver.js';
import { EnrollmentResolver } from '../enrollments/enrollment.resolver.js';
import { FileResolver } from '../files/file.resolver.js';
import { InstitutionResolver } from '../institutions/institution.resolver.js';
import { ModuleResolver } from '../modules/module.resolver.js';
import { PortfolioItemResolver } from '../portfolios/portfolio-item.resolver.js';
import { PortfolioPageResolver, StudentPagesResolver } from '../portfolios/portfolio-page.resolver.js';
import { StudentResolver } from '../students/student.resolver.js';
import { CertificateTemplateResolver } from '../templates/certificate-template.resolver.js';
import { ViewerResolver } from '../viewer/viewer.resolver.js';
import { CertificateBatchResolver } from '../certificates/certificate-batch.resolver.js';
import { JobResolver } from '../jobs/job.resolver.js';
import { WebhookDeliveryResolver, WebhookResolver } from '../webhooks/webhook.resolver.js';
import { NodeResolver } from './node.js';

/** Every resolver of the schema; a domain adds its resolver here. */
export const resolvers = [
  ViewerResolver,
  NodeResolver,
  InstitutionResolver,
  ModuleResolver,
  CourseResolver,
  CourseModuleResolver,
  ModuleGroupResolver,
  CohortResolver,
  StudentResolver,
  EnrollmentResolver,
  CertificateTemplateResolver,
  FileResolver,
  CertificateResolver,
  InstitutionBadgeResolver,
  CertificateBadgeResolver,
  CertificateEngagementResolver,
  CredentialOfferResolver,
  PortfolioPageResolver,
  StudentPagesResolver,
  PortfolioItemResolver,
  CertificateBatchResolver,
  JobResolver,
  WebhookResolver,
  WebhookDeliveryResolver,
] as const;
