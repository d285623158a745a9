import { createHash, sign, type KeyObject } from 'node:crypto';
import { certificateIdentity } from './certificate-info.js';
import { Oid, SHA256_OID } from './cms-oids.js';
import { contextTag, derNull, integer, octetString, oid, sequence, set, time, tlv } from './der.js';

export interface DetachedSignatureInput {
  /** The bytes the signature covers (for a PDF: everything but the /Contents hole). */
  content: Buffer;
  privateKey: KeyObject;
  /** DER of the signer's certificate. */
  certificate: Buffer;
  /** DER of further certificates to embed (the chain), if any. */
  chain?: Buffer[];
  signingTime: Date;
}

/**
 * Builds a CMS SignedData without encapsulated content (what adbe.pkcs7.detached expects), hashing
 * and signing with Node's native crypto: a few hundred microseconds where node-forge takes ~25 ms.
 */
export function buildDetachedSignature(input: DetachedSignatureInput): Buffer {
  const sha256 = sequence(oid(SHA256_OID));
  const attributes = signedAttributes(createHash('sha256').update(input.content).digest(), input.signingTime);
  const signature = sign('sha256', set(...attributes), input.privateKey);
  const signerInfo = sequence(
    integer(1),
    issuerAndSerialNumber(input.certificate),
    sha256,
    tlv(contextTag(0), ...attributes),
    signatureAlgorithm(input.privateKey),
    octetString(signature),
  );
  const signedData = sequence(integer(1), set(sha256), sequence(oid(Oid.data)), tlv(contextTag(0), input.certificate, ...(input.chain ?? [])), set(signerInfo));
  return sequence(oid(Oid.signedData), tlv(contextTag(0), signedData));
}

/** contentType, signingTime and messageDigest, in DER SET OF order. */
function signedAttributes(digest: Buffer, signingTime: Date): Buffer[] {
  return [
    sequence(oid(Oid.contentType), set(oid(Oid.data))),
    sequence(oid(Oid.signingTime), set(time(signingTime))),
    sequence(oid(Oid.messageDigest), set(octetString(digest))),
  ].sort(Buffer.compare);
}

function signatureAlgorithm(privateKey: KeyObject): Buffer {
  return privateKey.asymmetricKeyType === 'ec' ? sequence(oid(Oid.ecdsaWithSha256)) : sequence(oid(Oid.rsaEncryption), derNull());
}

function issuerAndSerialNumber(certificate: Buffer): Buffer {
  const { issuer, serial } = certificateIdentity(certificate);
  return sequence(issuer, serial);
}
