import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Client secrets and tokens are 256-bit random values, so a single SHA-256 is a sufficient
 * one-way hash (nothing to brute-force) and keeps verification to one indexed lookup.
 */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function newClientId(): string {
  return `client_${randomBytes(12).toString('hex')}`;
}

export const MIN_SECRET_LENGTH = 16;

export function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}
