import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { crc32 } from 'node:zlib';
import { DOMParser } from '@xmldom/xmldom';

/**
 * A third-party Open Badges 2.0 verifier, written from 1EdTech's "HostedBadge Verification" with
 * nothing but fetch, plus independent readers of baked PNG (chunk walk, zlib's CRC-32) and SVG
 * (an XML DOM). It shares no code with the service.
 */

export const OB2_CONTEXT = 'https://w3id.org/openbadges/v2';
const ACCEPT = { accept: 'application/ld+json, application/json' };

/** A port nobody listens on now, so the service's public URL can name it before it starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function getJson(url: string, headers: Record<string, string> = ACCEPT): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(url, { headers, redirect: 'manual' });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text && /json/.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : text,
  };
}

/** The RFC 3986 authority as written, as Python's rfc3986 `uri_reference(...).authority` reads it. */
const uriAuthority = (uri: string) => /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(uri)?.[1] ?? '';

const typesOf = (value: unknown) => (Array.isArray(value) ? value : [value]);

export type Verdict =
  { status: 'valid' } | { status: 'revoked'; reason: string | null } | { status: 'expired'; expires: string } | { status: 'invalid'; problem: string };

/** Follows a hosted assertion from its id: the steps a Badgr-like verifier takes, in order. */
export async function verifyHostedAssertion(assertionUrl: string, knownEmail: string): Promise<Verdict> {
  const fetched = await getJson(assertionUrl);
  if (fetched.status === 410 || fetched.body?.revoked === true) return { status: 'revoked', reason: fetched.body?.revocationReason ?? null };
  if (fetched.status !== 200) return { status: 'invalid', problem: `assertion answered ${fetched.status}` };
  const assertion = fetched.body;
  if (assertion['@context'] !== OB2_CONTEXT || !typesOf(assertion.type).includes('Assertion')) return { status: 'invalid', problem: 'not an OB 2.0 Assertion' };
  if (assertion.id !== assertionUrl) return { status: 'invalid', problem: 'the id is not where the assertion is hosted' };
  if (!['hosted', 'HostedBadge'].includes(assertion.verification?.type)) return { status: 'invalid', problem: 'not hosted verification' };

  const badge = (await getJson(assertion.badge)).body;
  if (badge['@context'] !== OB2_CONTEXT || !typesOf(badge.type).includes('BadgeClass') || badge.id !== assertion.badge)
    return { status: 'invalid', problem: 'badge class' };
  for (const required of ['name', 'description', 'image', 'criteria', 'issuer'])
    if (!badge[required]) return { status: 'invalid', problem: `badge class lacks ${required}` };
  const issuer = (await getJson(badge.issuer)).body;
  if (issuer['@context'] !== OB2_CONTEXT || !typesOf(issuer.type).some((type) => ['Issuer', 'Profile'].includes(type)) || issuer.id !== badge.issuer)
    return { status: 'invalid', problem: 'issuer profile' };

  // 1EdTech openbadges-validator-core (tasks/validation.py): an Issuer requires `url` and `email`.
  for (const required of ['name', 'url', 'email']) if (!issuer[required]) return { status: 'invalid', problem: `issuer lacks ${required}` };
  // validator-core (tasks/verification.py, hosted_id_in_verification_scope): the RFC 3986 authority
  // (host and port) of the assertion id must be among allowedOrigins (default: the issuer id's).
  const allowed: string[] = typesOf(issuer.verification?.allowedOrigins ?? uriAuthority(issuer.id));
  if (!allowed.includes(uriAuthority(assertion.id))) return { status: 'invalid', problem: 'origin not allowed by the issuer' };

  const { recipient } = assertion;
  const expected = recipient.hashed
    ? `sha256$${createHash('sha256')
        .update(knownEmail.toLowerCase() + (recipient.salt ?? ''))
        .digest('hex')}`
    : knownEmail;
  if (recipient.type !== 'email' || recipient.identity !== expected) return { status: 'invalid', problem: 'recipient does not match' };

  if (issuer.revocationList) {
    const list = (await getJson(issuer.revocationList)).body;
    if (!typesOf(list.type).includes('RevocationList')) return { status: 'invalid', problem: 'revocation list' };
    const entry = list.revokedAssertions.find((item: any) => (typeof item === 'string' ? item : item.id) === assertion.id);
    if (entry) return { status: 'revoked', reason: entry.revocationReason ?? null };
  }
  if (assertion.expires && new Date(assertion.expires) <= new Date()) return { status: 'expired', expires: assertion.expires };
  return { status: 'valid' };
}

export interface PngChunk {
  type: string;
  data: Buffer;
}

/** Every chunk of a PNG, each CRC checked. */
export function pngChunks(png: Buffer): PngChunk[] {
  if (!png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) throw new Error('not a PNG');
  const chunks: PngChunk[] = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    if (crc32(png.subarray(at + 4, at + 8 + length)) !== png.readUInt32BE(at + 8 + length)) throw new Error(`bad CRC in ${type}`);
    chunks.push({ type, data });
    at += 12 + length;
  }
  return chunks;
}

export function encodePng(chunks: PngChunk[]): Buffer {
  const parts = chunks.map(({ type, data }) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
    return Buffer.concat([head, data, crc]);
  });
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ...parts]);
}

export const isOpenBadgesText = (chunk: PngChunk) => chunk.type === 'iTXt' && chunk.data.toString('latin1', 0, 11) === 'openbadges\0';

/** iTXt: keyword NUL, compression flag, method, language NUL, translated keyword NUL, text. */
export function iTXtText(chunk: PngChunk): { compressed: boolean; text: string } {
  const language = chunk.data.indexOf(0, 13);
  const translated = chunk.data.indexOf(0, language + 1);
  return { compressed: chunk.data[11] !== 0, text: chunk.data.toString('utf8', translated + 1) };
}

export function iTXtChunk(text: string): PngChunk {
  return { type: 'iTXt', data: Buffer.concat([Buffer.from('openbadges\0\0\0\0\0', 'latin1'), Buffer.from(text, 'utf8')]) };
}

/** The first openbadges:assertion element of an SVG, as a DOM reads it. */
export function svgAssertion(svg: string): { namespace: string | null; verify: string | null; json: string; count: number; firstInRoot: boolean } {
  const document = new DOMParser().parseFromString(svg, 'image/svg+xml');
  const root = document.documentElement!;
  const elements = document.getElementsByTagNameNS('http://openbadges.org', 'assertion');
  const first = elements.item(0);
  if (!first) throw new Error('no openbadges:assertion element');
  return {
    namespace: root.getAttribute('xmlns:openbadges'),
    verify: first.getAttribute('verify'),
    json: (first.textContent ?? '').trim(),
    count: elements.length,
    firstInRoot: root.firstChild === first,
  };
}
