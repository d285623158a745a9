/**
 * Where a certificate's `public_verification_url` may point: it becomes the link in the student's
 * e-mail and on the PDF, so the service only vouches for its own origin (PUBLIC_BASE_URL, http
 * allowed only when that origin itself is http, i.e. in development) and for https URLs on hosts
 * the operator allowed for the tenant (each host with its subdomains).
 */
export function verificationLinkProblem(link: string, publicBaseUrl: string, allowedHosts: readonly string[]): string | null {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return 'The public verification url must be a valid URL.';
  }
  if (url.username || url.password) return 'The public verification url must not contain credentials.';
  if (url.origin === new URL(publicBaseUrl).origin) return null;
  if (url.protocol !== 'https:') return 'The public verification url must use https.';
  const host = url.hostname;
  if (allowedHosts.some((allowed) => host === allowed || host.endsWith(`.${allowed}`))) return null;
  return 'The public verification url must be on this service’s address or on a domain allowed for the tenant.';
}

// At least two labels and a top-level label of letters (or punycode): no bare TLDs, no IP addresses.
const HOST = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/** An operator-given host in the form the rule compares (lowercase, punycode); null when it is not a domain name. */
export function normalizeLinkHost(given: string): string | null {
  try {
    const { hostname, username, port, pathname } = new URL(`https://${given.trim()}`);
    return HOST.test(hostname) && !username && !port && pathname === '/' ? hostname : null;
  } catch {
    return null;
  }
}
