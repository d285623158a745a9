import { isUuid } from '../../db/uuid.js';

/** Where this service hosts Open Badges 3.0 documents; every id and did:web path it publishes is below it. */
export const OB3_PATH = '/ob/v3';

/**
 * did:web (W3C CCG "did:web Method Specification", §3.2): the host (a port percent-encoded as `%3A`)
 * then the path segments, joined with `:`. `did:web:host%3A8443:ob:v3:issuers:<uuid>` resolves to
 * `https://host:8443/ob/v3/issuers/<uuid>/did.json`. A path prefix of PUBLIC_BASE_URL becomes segments too.
 */
function didPrefix(publicBaseUrl: string): string {
  const url = new URL(publicBaseUrl);
  const segments = url.pathname.split('/').filter(Boolean).map(encodeURIComponent);
  return ['did:web', encodeURIComponent(url.host), ...segments].join(':');
}

/** Where this service hosts CLR 2.0 transcripts. */
export const CLR_PATH = '/clr/v2';

export function ob3Urls(publicBaseUrl: string) {
  const root = `${publicBaseUrl}${OB3_PATH}`;
  const issuerRoot = (institutionUuid: string) => `${root}/issuers/${institutionUuid}`;
  const issuerDid = (institutionUuid: string) => `${didPrefix(publicBaseUrl)}:ob:v3:issuers:${institutionUuid}`;
  return {
    issuerDid,
    /** Where the DID document of `issuerDid` is served. */
    didDocument: (institutionUuid: string) => `${issuerRoot(institutionUuid)}/did.json`,
    profile: issuerRoot,
    statusList: (institutionUuid: string, listNumber: number) => `${issuerRoot(institutionUuid)}/status/${listNumber}`,
    credential: (certificateUuid: string) => `${root}/credentials/${certificateUuid}`,
    achievement: (courseUuid: string) => `${root}/achievements/${courseUuid}`,
    /** The certificate's transcript as a CLR 2.0 ClrCredential. */
    clr: (certificateUuid: string) => `${publicBaseUrl}${CLR_PATH}/credentials/${certificateUuid}`,
    /** The institution a DID (or a DID URL with a fragment) of this service names, else null. */
    institutionOfDid(did: string): string | null {
      const prefix = `${issuerDid('')}`;
      const uuid = did.startsWith(prefix) ? did.slice(prefix.length).split('#')[0]! : '';
      return isUuid(uuid) ? uuid : null;
    },
    /** The institution and list number a status list URL of this service names, else null. */
    statusListOf(url: string): { institutionUuid: string; listNumber: number } | null {
      const match = url.startsWith(`${root}/issuers/`) ? /^([^/]+)\/status\/([1-9][0-9]{0,5})$/.exec(url.slice(root.length + 9)) : null;
      return match && isUuid(match[1]!) ? { institutionUuid: match[1]!, listNumber: Number(match[2]) } : null;
    },
    /** The certificate a credential id of this service names, else null. */
    certificateOf(id: string): string | null {
      const uuid = id.startsWith(`${root}/credentials/`) ? id.slice(root.length + 13) : '';
      return isUuid(uuid) ? uuid : null;
    },
  };
}

export type Ob3Urls = ReturnType<typeof ob3Urls>;
