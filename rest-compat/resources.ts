import type { RestResource } from './resource.js';

/** The REST representation of each collection, as GraphQL selections (renamed to snake_case on the way out). */
const INSTITUTION = 'uuid name legalName taxId country website networkOrganization status isBadgesEnabled badgeImageUuid createdAt updatedAt';
const MODULE = 'uuid code name description syllabus workload credits modality level isActive isRequired institution { uuid name } createdAt updatedAt';
const COURSE = `uuid name code description workload isActive institution { uuid name }
  modules { order module { uuid code name workload credits isRequired } group { uuid name order } } createdAt updatedAt`;
const MODULE_GROUP = 'uuid name order isActive course { uuid name } createdAt updatedAt';
const COHORT = 'uuid code modality startDate endDate course { uuid name } createdAt updatedAt';
const STUDENT = 'uuid name email dateOfBirth gender socialName createdAt updatedAt';
const ENROLLMENT = 'uuid completionStatus grade enrolledAt completedAt student { uuid name } course { uuid name } cohort { uuid code } createdAt updatedAt';
const TEMPLATE = 'uuid name version path previewImagePath designConfig isDefault status institution { uuid name } createdAt updatedAt';

const withoutEmbedded = (fields: string) => fields.replace(/\s\w+ \{[^{}]*(\{[^{}]*\}[^{}]*)*\}/g, '');

export const institutions: RestResource = { path: '/institutions', name: 'Institution', pluralName: 'Institutions', fields: INSTITUTION };

export const modules: RestResource = {
  path: '/modules',
  name: 'Module',
  pluralName: 'Modules',
  fields: MODULE,
  includes: { institution: `institution { ${INSTITUTION} }` },
};

export const courses: RestResource = {
  path: '/courses',
  name: 'Course',
  pluralName: 'Courses',
  fields: COURSE,
  includes: { institution: `institution { ${INSTITUTION} }`, groups: `moduleGroups { ${withoutEmbedded(MODULE_GROUP)} }` },
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
  includes: { course: `course { ${withoutEmbedded(COURSE)} }` },
};

export const students: RestResource = {
  path: '/students',
  name: 'Student',
  pluralName: 'Students',
  fields: STUDENT,
  includes: { enrollments: `enrollments { ${ENROLLMENT.replace(/student \{ uuid name \} /, '')} }` },
  whereAliases: { 'user.email': 'email' },
  without: ['replace'],
};

export const enrollments: RestResource = {
  path: '/enrollments',
  name: 'Enrollment',
  pluralName: 'Enrollments',
  fields: ENROLLMENT,
  includes: {
    student: `student { ${STUDENT} }`,
    course: `course { ${withoutEmbedded(COURSE)} }`,
    cohort: `cohort { ${withoutEmbedded(COHORT)} }`,
  },
};

export const certificateTemplates: RestResource = {
  path: '/certificate-templates',
  name: 'CertificateTemplate',
  pluralName: 'CertificateTemplates',
  fields: TEMPLATE,
  includes: { institution: `institution { ${INSTITUTION} }` },
  opaqueFields: ['designConfig'],
};

const FILE = 'uuid originalName mimeType extension size usedAt file createdAt updatedAt';
const CERTIFICATE = `uuid status issuedAt revokedAt revocationReason expiresAt publicVerificationUrl blockchainTxHash blockchainTxUrl
  institution { uuid name } course { uuid name } student: recipient { uuid name: displayName }
  cohort { uuid code } enrollment { uuid completionStatus grade } template { uuid name version }
  files { type uuid } createdAt updatedAt`;

export const certificates: RestResource = {
  path: '/certificates',
  name: 'Certificate',
  pluralName: 'Certificates',
  fields: CERTIFICATE,
  includes: {
    student: `student { ${STUDENT} }`,
    course: `course { ${withoutEmbedded(COURSE)} }`,
    institution: `institution { ${INSTITUTION} }`,
    files: `files { type ${FILE.replace(' usedAt', '').replace(' updatedAt', '')} }`,
  },
};

const PORTFOLIO_ITEM = 'uuid sortOrder isVisible certificate { uuid publicVerificationUrl } createdAt updatedAt';
const PORTFOLIO_PAGE = `uuid slug isPublic bio publicUrl student { uuid name } items { ${PORTFOLIO_ITEM} } createdAt updatedAt`;

/** Pages under their student; the batch delete is `DELETE /students/{uuid}/pages` (portfolio-routes.ts), guarded by the student. */
export const portfolioPages: RestResource = {
  path: '/students/:studentUuid/pages',
  name: 'PortfolioPage',
  pluralName: 'PortfolioPages',
  fields: PORTFOLIO_PAGE,
  parent: 'studentUuid',
  includes: { student: `student { ${STUDENT} }` },
  without: ['batch'],
};

/** Items under a page under a student: added, not created, so their routes are written out in portfolio-routes.ts. */
export const portfolioItems: RestResource = {
  path: '/students/:studentUuid/pages/:pageUuid/items',
  name: 'PortfolioItem',
  pluralName: 'PortfolioItems',
  fields: PORTFOLIO_ITEM,
  includes: { certificate: `certificate { ${CERTIFICATE} }` },
};
