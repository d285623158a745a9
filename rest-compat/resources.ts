import type { RestResource } from './resource.js';
import { MAX_RELATION_SIZE } from '../src/graphql/connection.js';
import { fields, leaves, nest, nestRows, omit } from './selection.js';

/** The REST representation of each collection, as GraphQL selections (renamed to snake_case on the way out). */
const INSTITUTION = fields(
  'uuid externalId name legalName taxId country website email networkOrganization status isBadgesEnabled isGradePublic isWalletPinRequired badgeImageUuid createdAt updatedAt',
);
const MODULE = fields('uuid code name description syllabus workload credits modality level isActive isRequired institution { uuid name } createdAt updatedAt');
const COURSE = fields(`uuid externalId name code description workload isActive institution { uuid name }
  modules { order module { uuid code name workload credits isRequired } group { uuid name order } } createdAt updatedAt`);
const MODULE_GROUP = fields('uuid name order isActive course { uuid name } createdAt updatedAt');
const COHORT = fields('uuid code modality startDate endDate course { uuid name } createdAt updatedAt');
const STUDENT = fields('uuid externalId name email dateOfBirth gender socialName createdAt updatedAt');
const ENROLLMENT = fields(
  'uuid completionStatus grade enrolledAt completedAt student { uuid name } course { uuid name } cohort { uuid code } createdAt updatedAt',
);
const TEMPLATE = fields('uuid name version path previewImagePath designConfig isDefault status institution { uuid name } createdAt updatedAt');
const FILE = fields('uuid originalName mimeType extension size usedAt file createdAt updatedAt');
const CERTIFICATE =
  fields(`uuid externalId status locale issuedAt revokedAt revocationReason expiresAt publicVerificationUrl blockchainTxHash blockchainTxUrl blockcertsUrl clrUrl
  institution { uuid name } course { uuid name } student: recipient { uuid name: displayName }
  cohort { uuid code } enrollment { uuid completionStatus grade } template { uuid name version }
  files { type uuid } createdAt updatedAt`);

export const institutions: RestResource = { path: '/institutions', name: 'Institution', pluralName: 'Institutions', fields: INSTITUTION };

export const modules: RestResource = {
  path: '/modules',
  name: 'Module',
  pluralName: 'Modules',
  fields: MODULE,
  includes: { institution: nest('institution', INSTITUTION) },
};

export const courses: RestResource = {
  path: '/courses',
  name: 'Course',
  pluralName: 'Courses',
  fields: COURSE,
  includes: { institution: nest('institution', INSTITUTION), groups: nest('moduleGroups', leaves(MODULE_GROUP)) },
};

export const moduleGroups: RestResource = {
  path: '/courses/:courseUuid/modules/groups',
  name: 'ModuleGroup',
  pluralName: 'ModuleGroups',
  fields: MODULE_GROUP,
  parent: 'courseUuid',
  without: ['batch'],
};

export const cohorts: RestResource = {
  path: '/cohorts',
  name: 'Cohort',
  pluralName: 'Cohorts',
  fields: COHORT,
  includes: { course: nest('course', leaves(COURSE)) },
};

export const students: RestResource = {
  path: '/students',
  name: 'Student',
  pluralName: 'Students',
  fields: STUDENT,
  includes: {
    enrollments: nestRows('enrollments', omit(ENROLLMENT, 'student'), MAX_RELATION_SIZE),
    certificates: nestRows('certificates', omit(CERTIFICATE, 'student'), MAX_RELATION_SIZE),
  },
  whereAliases: { 'user.email': 'email' },
  without: ['replace'],
};

export const enrollments: RestResource = {
  path: '/enrollments',
  name: 'Enrollment',
  pluralName: 'Enrollments',
  fields: ENROLLMENT,
  includes: {
    student: nest('student', STUDENT),
    course: nest('course', leaves(COURSE)),
    cohort: nest('cohort', leaves(COHORT)),
  },
};

export const certificateTemplates: RestResource = {
  path: '/certificate-templates',
  name: 'CertificateTemplate',
  pluralName: 'CertificateTemplates',
  fields: TEMPLATE,
  includes: { institution: nest('institution', INSTITUTION) },
  opaqueFields: ['designConfig'],
};

/** Files: no batch destroy (spec), and no JSON create — they arrive as multipart uploads (file-routes.ts). */
export const files: RestResource = { path: '/files', name: 'File', pluralName: 'Files', fields: FILE, without: ['create', 'batch'] };

export const certificates: RestResource = {
  path: '/certificates',
  name: 'Certificate',
  pluralName: 'Certificates',
  fields: CERTIFICATE,
  includes: {
    student: nest('student', STUDENT),
    course: nest('course', leaves(COURSE)),
    institution: nest('institution', INSTITUTION),
    files: nest('files', [...fields('type'), ...omit(FILE, 'usedAt', 'updatedAt')]),
  },
};

const PORTFOLIO_ITEM_TEXT = 'uuid sortOrder isVisible certificate { uuid publicVerificationUrl } createdAt updatedAt';
const PORTFOLIO_ITEM = fields(PORTFOLIO_ITEM_TEXT);
const PORTFOLIO_PAGE = fields(`uuid slug isPublic bio publicUrl student { uuid name } items { ${PORTFOLIO_ITEM_TEXT} } createdAt updatedAt`);

/** Pages under their student; the batch delete is `DELETE /students/{uuid}/pages` (portfolio-routes.ts), guarded by the student. */
export const portfolioPages: RestResource = {
  path: '/students/:studentUuid/pages',
  name: 'PortfolioPage',
  pluralName: 'PortfolioPages',
  fields: PORTFOLIO_PAGE,
  parent: 'studentUuid',
  includes: { student: nest('student', STUDENT) },
  without: ['batch'],
};

/** Items under a page under a student: added, not created, so their routes are written out in portfolio-routes.ts. */
export const portfolioItems: RestResource = {
  path: '/students/:studentUuid/pages/:pageUuid/items',
  name: 'PortfolioItem',
  pluralName: 'PortfolioItems',
  fields: PORTFOLIO_ITEM,
  includes: { certificate: nest('certificate', CERTIFICATE) },
};

/** Webhook endpoints; `secret` is filled only in the POST answer. Deliveries and redelivery: webhook-routes.ts. */
export const webhooks: RestResource = {
  path: '/webhooks',
  name: 'Webhook',
  pluralName: 'Webhooks',
  fields: 'uuid url description events enabled disabledAt disabledReason secret createdAt updatedAt',
};

/** One delivery of an event to an endpoint, with its attempt log. */
export const WEBHOOK_DELIVERY = fields(
  'uuid webhookId eventType subjectUuid status attemptCount nextAttemptAt deliveredAt lastResponseStatus lastError attempts { attemptedAt responseStatus error durationMs } createdAt',
);
