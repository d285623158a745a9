import { type BadgeSettings, servesBadges } from '../certificates/public-standing.js';
import { isUuid } from '../db/uuid.js';

/** Where this service hosts Open Badges 2.0 documents: every `id` it publishes is one of these. */
export const OB2_PATH = '/ob/v2';

export type BakedImageType = 'png' | 'svg';

export function badgeUrls(publicBaseUrl: string) {
  const root = `${publicBaseUrl}${OB2_PATH}`;
  const assertion = (certificateUuid: string) => `${root}/assertions/${certificateUuid}`;
  return {
    issuer: (institutionUuid: string) => `${root}/issuers/${institutionUuid}`,
    revocationList: (institutionUuid: string) => `${root}/issuers/${institutionUuid}/revocations`,
    badgeClass: (courseUuid: string) => `${root}/badges/${courseUuid}`,
    assertion,
    bakedImage: (certificateUuid: string, type: BakedImageType) => `${assertion(certificateUuid)}/image.${type}`,
    /** The certificate uuid an assertion id of this service names, or null for any other IRI. */
    certificateOf(assertionId: string): string | null {
      const prefix = `${root}/assertions/`;
      if (!assertionId.startsWith(prefix)) return null;
      const uuid = assertionId.slice(prefix.length);
      return isUuid(uuid) ? uuid : null;
    },
  };
}

export type BadgeUrls = ReturnType<typeof badgeUrls>;

/**
 * The download link offered to the recipient (e-mail): the baked image in the badge image's own
 * format, behind a redirect so it needs no file lookup. Null while the institution issues no badges.
 */
export function bakedBadgeLink(institution: BadgeSettings, certificateUuid: string, publicBaseUrl: string): string | null {
  return servesBadges(institution) ? `${badgeUrls(publicBaseUrl).assertion(certificateUuid)}/image` : null;
}
