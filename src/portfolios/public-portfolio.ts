import { displayName, verificationUrl } from '../certificates/certificate-rules.js';
import { isPubliclyShown, publicStanding, servesBadges } from '../certificates/public-standing.js';
import type { PublicContext } from '../context/request-context.js';
import type { Course } from '../courses/course.entity.js';
import { acrossTenants } from '../db/tenant-scope.js';
import { downloadUrl } from '../files/file-runtime.js';
import type { Institution } from '../institutions/institution.entity.js';
import type { Student } from '../students/student.entity.js';
import { PortfolioItem } from './portfolio-item.entity.js';
import { PortfolioPage } from './portfolio-page.entity.js';
import { isPortfolioSlug } from './portfolio-slug.js';
import { portfolioUrl } from './portfolio-url.js';

export interface PublicPortfolioItem {
  certificateUuid: string;
  institutionName: string;
  courseName: string;
  issuedAt: Date;
  status: 'issued' | 'revoked' | 'expired';
  expiresAt: Date | null;
  revokedAt: Date | null;
  verificationUrl: string;
  /** The institution's badge image while it issues badges, else null. */
  badgeImageUrl: string | null;
}

export interface PublicPortfolio {
  tenantSlug: string;
  slug: string;
  /** The page's own address (canonical link, shared cards). */
  url: string;
  displayName: string;
  bio: string | null;
  /** The latest change to the page or one of its visible items. */
  updatedAt: Date;
  items: PublicPortfolioItem[];
}

/**
 * Public reads cross tenants by tenant identifier and slug, so the tenant filter is off; the live
 * filter is off too, because a deleted course still names its certificates — live pages, items and
 * students are asked for explicitly instead, and certificates go through public-standing.ts.
 */
const MAX_TENANT_IDENTIFIER = 63;

/** The public view of a page, in two statements whatever its size; null unless the page and its student are live and the page is public. */
export async function loadPublicPortfolio(
  { em, publicBaseUrl }: Pick<PublicContext, 'em' | 'publicBaseUrl'>,
  tenantSlug: string,
  slug: string,
): Promise<PublicPortfolio | null> {
  if (!isPortfolioSlug(slug) || tenantSlug.length === 0 || tenantSlug.length > MAX_TENANT_IDENTIFIER) return null;
  const page = await em.findOne(
    PortfolioPage,
    { slug, isPublic: true, deletedAt: null, tenant: { identifier: tenantSlug }, student: { deletedAt: null } },
    { ...acrossTenants('deleted too'), populate: ['student'] },
  );
  if (!page) return null;
  const listed = await em.find(
    PortfolioItem,
    { page, isVisible: true, deletedAt: null },
    {
      ...acrossTenants('deleted too'),
      populate: ['certificate.course', 'certificate.institution'],
      orderBy: { sortOrder: 'asc', createdAt: 'asc', uuid: 'asc' },
    },
  );
  // Withdrawn certificates (deleted, or their institution deleted) are left out, as everywhere public.
  const items = listed.filter((item) => isPubliclyShown(standingOf(item)));
  const student = page.student.getEntity() as Student;
  return {
    tenantSlug,
    slug,
    url: portfolioUrl(publicBaseUrl, tenantSlug, slug),
    displayName: displayName(student),
    bio: page.bio ?? null,
    updatedAt: new Date(Math.max(page.updatedAt.getTime(), ...items.map((item) => item.updatedAt.getTime()))),
    items: items.map((item) => publicItem(item, publicBaseUrl)),
  };
}

const standingOf = (item: PortfolioItem) => {
  const certificate = item.certificate.getEntity();
  return publicStanding(certificate, certificate.institution.getEntity() as Institution);
};

function publicItem(item: PortfolioItem, publicBaseUrl: string): PublicPortfolioItem {
  const certificate = item.certificate.getEntity();
  const institution = certificate.institution.getEntity() as Institution;
  const course = certificate.course.getEntity() as Course;
  const standing = standingOf(item) as 'valid' | 'revoked' | 'expired';
  return {
    certificateUuid: certificate.uuid,
    institutionName: institution.name,
    courseName: course.name,
    issuedAt: certificate.issuedAt!,
    status: standing === 'valid' ? 'issued' : standing,
    expiresAt: certificate.expiresAt ?? null,
    revokedAt: certificate.revokedAt ?? null,
    verificationUrl: verificationUrl(certificate, publicBaseUrl),
    badgeImageUrl: servesBadges(institution) ? downloadUrl(publicBaseUrl, institution.badgeImageUuid!) : null,
  };
}
