import { createPublicKey, type JsonWebKey, verify } from 'node:crypto';
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import { WalletError } from './wallet-errors.js';

/**
 * The wallet's proof of possession (OpenID4VCI 1.0 §8.2.1.1, Appendix F.1): a JWT of type
 * `openid4vci-proof+jwt` signed by the holder's key, named by `kid` as a `did:key` (Ed25519) or
 * `did:jwk` DID URL, for this issuer (`aud`), fresh (`iat`), carrying a c_nonce of ours.
 */

/** How far `iat` may lie from now, either way (clock skew and the wallet's round trips). */
export const PROOF_MAX_AGE_SECONDS = 300;
const MAX_JWT_CHARS = 8192;
const ALGORITHMS = new Set(['EdDSA', 'ES256']);

export interface HolderProof {
  /** The holder's DID: the credential's subject id. */
  holder: string;
  nonce: string | null;
}

const proofError = (description: string) => new WalletError('invalid_proof', description);

function decodePart(part: string, what: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw proofError(`The proof's ${what} is not a JSON object.`);
}

/** The public key a holder DID URL names: did:key (Ed25519 Multikey) or did:jwk (a public JWK, `#0`). */
async function holderKey(kid: string): Promise<{ holder: string; jwk: JsonWebKey }> {
  const [holder, fragment] = kid.split('#') as [string, string | undefined];
  if (holder.startsWith('did:key:z6Mk')) {
    const multibase = holder.slice('did:key:'.length);
    if (fragment !== undefined && fragment !== multibase) throw proofError('The kid names no key of its did:key.');
    try {
      const keyPair = await Ed25519Multikey.from({ type: 'Multikey', controller: holder, id: `${holder}#${multibase}`, publicKeyMultibase: multibase });
      return { holder, jwk: (await Ed25519Multikey.toJwk({ keyPair })) as JsonWebKey };
    } catch {
      throw proofError('The did:key is not an Ed25519 public key.');
    }
  }
  if (holder.startsWith('did:jwk:')) {
    if (fragment !== undefined && fragment !== '0') throw proofError('A did:jwk names its key as #0.');
    const jwk = decodePart(holder.slice('did:jwk:'.length), 'did:jwk') as JsonWebKey;
    if ('d' in jwk) throw proofError('The did:jwk carries a private key.');
    return { holder, jwk };
  }
  throw proofError('The proof must name its key by kid as a did:key (Ed25519) or did:jwk DID URL.');
}

function signatureHolds(alg: string, jwk: JsonWebKey, data: Buffer, signature: Buffer): boolean {
  try {
    const key = createPublicKey({ key: jwk, format: 'jwk' });
    const expected = alg === 'EdDSA' ? 'ed25519' : 'ec';
    if (key.asymmetricKeyType !== expected || (alg === 'ES256' && jwk.crv !== 'P-256')) return false;
    return verify(alg === 'EdDSA' ? null : 'sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature);
  } catch {
    return false;
  }
}

/** The holder and nonce of a valid proof JWT for `audience` (the credential issuer), else `invalid_proof`. */
export async function verifyProofJwt(jwt: unknown, audience: string, now = new Date()): Promise<HolderProof> {
  if (typeof jwt !== 'string' || jwt.length > MAX_JWT_CHARS) throw proofError('A proof JWT is required.');
  const parts = jwt.split('.');
  if (parts.length !== 3) throw proofError('The proof is not a compact JWS.');
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const header = decodePart(headerPart, 'header');
  const payload = decodePart(payloadPart, 'payload');
  if (header.typ !== 'openid4vci-proof+jwt') throw proofError('The proof JWT must be of type openid4vci-proof+jwt.');
  const alg = typeof header.alg === 'string' ? header.alg : '';
  if (!ALGORITHMS.has(alg)) throw proofError('The proof must be signed with EdDSA or ES256.');
  if (typeof header.kid !== 'string') throw proofError('The proof must name its key by kid as a did:key or did:jwk DID URL.');
  const { holder, jwk } = await holderKey(header.kid);
  if (!signatureHolds(alg, jwk, Buffer.from(`${headerPart}.${payloadPart}`), Buffer.from(signaturePart, 'base64url'))) {
    throw proofError("The proof's signature does not verify with the holder's key.");
  }
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (!audiences.includes(audience)) throw proofError(`The proof is not for this credential issuer (aud must be ${audience}).`);
  const iat = payload.iat;
  if (typeof iat !== 'number' || Math.abs(now.getTime() / 1000 - iat) > PROOF_MAX_AGE_SECONDS) {
    throw proofError(`The proof's iat must be within ${PROOF_MAX_AGE_SECONDS} seconds of now.`);
  }
  return { holder, nonce: typeof payload.nonce === 'string' ? payload.nonce : null };
}
