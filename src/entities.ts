import { AccessToken } from './auth/access-token.entity.js';
import { BadgeAssertionSalt } from './badges/badge-salt.entity.js';
import { BakedBadgeImage } from './badges/baked-image.entity.js';
import { CertificateEngagement } from './engagement/engagement.entity.js';
import { IssuerKey } from './badges/v3/issuer-key.entity.js';
import { OpenBadgeCredentialRecord } from './badges/v3/open-badge-credential.entity.js';
import { SignedStatusList, StatusListRecord } from './badges/v3/status-list.entity.js';
import { CertificateDocument } from './certificates/certificate-document.entity.js';
import { Certificate } from './certificates/certificate.entity.js';
import { SigningIdentity } from './certificates/signing-identity.entity.js';
import { OAuthClient } from './auth/oauth-client.entity.js';
import { Cohort } from './courses/cohort.entity.js';
import { CourseModule } from './courses/course-module.entity.js';
import { Course } from './courses/course.entity.js';
import { ModuleGroup } from './courses/module-group.entity.js';
import { Enrollment } from './enrollments/enrollment.entity.js';
import { StoredFile } from './files/file.entity.js';
import { FileChunk } from './files/storage/file-chunk.entity.js';
import { Institution } from './institutions/institution.entity.js';
import { Module } from './modules/module.entity.js';
import { PortfolioItem } from './portfolios/portfolio-item.entity.js';
import { PortfolioPage } from './portfolios/portfolio-page.entity.js';
import { Student } from './students/student.entity.js';
import { CertificateTemplate } from './templates/certificate-template.entity.js';
import { Notification } from './notifications/notification.entity.js';
import { RateLimitBucket } from './rate-limits/rate-limit-bucket.entity.js';
import { Tenant } from './tenants/tenant.entity.js';
import { IdempotencyKey } from './idempotency/idempotency-key.entity.js';
import { Job } from './jobs/job.entity.js';
import { WebhookDelivery } from './webhooks/webhook-delivery.entity.js';
import { WebhookEndpoint } from './webhooks/webhook-endpoint.entity.js';
import { WebhookMessage } from './webhooks/webhook-message.entity.js';
import { CredentialClaim, CredentialOffer, WalletAccessToken, WalletNonce } from './wallets/wallet.entities.js';
import { AnchorBatch, AnchorKey, CertificateAnchor } from './anchoring/anchor.entities.js';

/** Every entity the ORM knows; listed explicitly so builds and tests need no file discovery. */
export const entities = [
  Tenant,
  OAuthClient,
  AccessToken,
  Institution,
  Module,
  Course,
  ModuleGroup,
  CourseModule,
  Cohort,
  Student,
  Enrollment,
  CertificateTemplate,
  Notification,
  StoredFile,
  FileChunk,
  Certificate,
  CertificateDocument,
  SigningIdentity,
  RateLimitBucket,
  BadgeAssertionSalt,
  BakedBadgeImage,
  CertificateEngagement,
  PortfolioPage,
  PortfolioItem,
  IssuerKey,
  OpenBadgeCredentialRecord,
  CredentialOffer,
  WalletAccessToken,
  WalletNonce,
  CredentialClaim,
  StatusListRecord,
  SignedStatusList,
  IdempotencyKey,
  Job,
  WebhookEndpoint,
  WebhookMessage,
  WebhookDelivery,
  AnchorKey,
  AnchorBatch,
  CertificateAnchor,
];
