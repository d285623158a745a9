import dns from 'node:dns';
import net, { BlockList } from 'node:net';

/**
 * Which webhook URLs the service may POST to: the one rule registration (webhook.service.ts) and
 * delivery (webhook-http.ts) both apply. Never credentials in the URL; unless private addresses are
 * allowed (WEBHOOK_ALLOW_PRIVATE, default outside production), only public addresses, judged on every
 * address the host name resolves to.
 */

const NON_PUBLIC = new BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const)
  NON_PUBLIC.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  NON_PUBLIC.addSubnet(address, prefix, 'ipv6');

/** Whether an address is not on the public internet (IPv4-mapped IPv6 judged as its IPv4). */
export function isNonPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return NON_PUBLIC.check(mapped, 'ipv4');
  const family = net.isIP(address);
  if (family === 0) return true;
  return NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Why the service will not send to `url` before resolving its host (credentials, a non-public IP literal), or null. */
export function urlProblem(url: URL, allowPrivate: boolean): string | null {
  if (url.username || url.password) return 'The url must not contain credentials (user:password@); authenticate deliveries by their signature.';
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && net.isIP(literal) && isNonPublicAddress(literal)) return `${literal} is not a public address`;
  return null;
}

/** Why the addresses `hostname` resolved to may not be reached, or null. */
export function resolvedProblem(hostname: string, addresses: readonly { address: string }[]): string | null {
  const refused = addresses.find(({ address }) => isNonPublicAddress(address));
  return refused ? `${hostname} resolves to a non-public address (${refused.address})` : null;
}

const REGISTRATION_LOOKUP_MS = 3000;

/**
 * The rule at registration: `urlProblem`, then (unless private addresses are allowed) every address
 * the host resolves to now. A name that does not resolve (yet) is accepted: delivery checks again on
 * the address it connects to, since DNS may change in between either way.
 */
export async function registrationProblem(raw: string, allowPrivate: boolean): Promise<string | null> {
  const url = new URL(raw);
  const problem = urlProblem(url, allowPrivate);
  if (problem || allowPrivate || net.isIP(url.hostname.replace(/^\[|\]$/g, ''))) return problem;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), REGISTRATION_LOOKUP_MS)));
  const lookup = dns.promises.lookup(url.hostname, { all: true }).then(
    (addresses) => resolvedProblem(url.hostname, addresses),
    () => null,
  );
  return Promise.race([lookup, timeout]).finally(() => clearTimeout(timer));
}
