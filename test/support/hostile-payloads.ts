/**
 * Requests an attacker would send, built from scratch so tests and `npm run bench -- hostile` can
 * replay them: PDFs that cost CPU or memory to inspect, cyclic GraphQL, deep JSON, unstorable text.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { integer, oid, sequence, set, tlv, Tag, derNull, octetString, time } from '../../src/documents/der.js';

const RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
const SHA256_WITH_RSA = '1.2.840.113549.1.1.11';
const SHA256 = '2.16.840.1.101.3.4.2.1';
const SIGNED_DATA = '1.2.840.113549.1.7.2';
const DATA = '1.2.840.113549.1.7.1';
const COMMON_NAME = '2.5.4.3';

const unsignedInteger = (value: Buffer) => tlv(Tag.INTEGER, value[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), value]) : value);
const bitString = (value: Buffer) => tlv(0x03, Buffer.from([0]), value);
const name = (commonName: string) => sequence(set(sequence(oid(COMMON_NAME), tlv(0x0c, Buffer.from(commonName)))));
const algorithm = (dotted: string) => sequence(oid(dotted), derNull());

/**
 * An X.509 certificate whose RSA public exponent is `exponentBits` long: each signature check with it
 * costs as much as a private-key operation. Its own signature is random; only its key is ever used.
 */
export function slowKeyCertificate(modulusBits = 3072, exponentBits = 3071): Buffer {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: modulusBits });
  const modulus = Buffer.from(publicKey.export({ format: 'jwk' }).n!, 'base64url');
  const exponent = randomBytes(Math.ceil(exponentBits / 8));
  const topBits = exponentBits % 8 || 8;
  exponent[0] = (exponent[0]! & ((1 << topBits) - 1)) | (1 << (topBits - 1));
  exponent[exponent.length - 1]! |= 1;
  const spki = sequence(algorithm(RSA_ENCRYPTION), bitString(sequence(unsignedInteger(modulus), unsignedInteger(exponent))));
  const validity = sequence(time(new Date('2025-01-01T00:00:00Z')), time(new Date('2035-01-01T00:00:00Z')));
  const tbs = sequence(tlv(0xa0, integer(2)), unsignedInteger(randomBytes(8)), algorithm(SHA256_WITH_RSA), name('Slow key'), validity, name('Slow key'), spki);
  return sequence(tbs, algorithm(SHA256_WITH_RSA), bitString(randomBytes(modulusBits / 8)));
}

/** A CMS SignedData with `copies` of one certificate and a signer that none of them identifies. */
function signatureBomb(copies: number, exponentBits = 3071): Buffer {
  const certificate = slowKeyCertificate(3072, exponentBits);
  const signature = randomBytes(384);
  signature[0]! &= 0x7f; // below any 3072-bit modulus, so OpenSSL does the whole exponentiation
  const signerInfo = sequence(integer(1), sequence(name('Nobody'), integer(99)), algorithm(SHA256), algorithm(RSA_ENCRYPTION), octetString(signature));
  const signedData = sequence(integer(1), set(algorithm(SHA256)), sequence(oid(DATA)), tlv(0xa0, ...Array<Buffer>(copies).fill(certificate)), set(signerInfo));
  return sequence(oid(SIGNED_DATA), tlv(0xa0, signedData));
}

/** A PDF whose last signature's /Contents hole holds `cms`, with a correct /ByteRange around it. */
export function pdfWithSignature(cms: Buffer, body = ''): Buffer {
  const hex = cms.toString('hex');
  const head = `%PDF-1.7\n${body}9 0 obj\n<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /adbe.pkcs7.detached /ByteRange [0000000000 0000000000 0000000000 0000000000] /Contents `;
  const tail = ' >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n';
  const contentsAt = head.length;
  const afterContents = contentsAt + hex.length + 2;
  const pad = (n: number) => String(n).padStart(10, '0');
  const range = `[${pad(0)} ${pad(contentsAt)} ${pad(afterContents)} ${pad(tail.length)}]`;
  return Buffer.from(`${head.replace(/\[0{10} 0{10} 0{10} 0{10}\]/, range)}<${hex}>${tail}`, 'latin1');
}

/** finding 1: every certificate is tried when none matches the signer (1,000 copies ≈ 2.6 MB). */
export function cpuBombPdf(copies = 1000): Buffer {
  return pdfWithSignature(signatureBomb(copies));
}

/** finding 2: a few KB whose cross-reference stream claims two billion objects. */
export function hugeXrefPdf(): Buffer {
  const objects = '1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n';
  const entries = Buffer.alloc(3500, 0).toString('latin1');
  const xref = `3 0 obj\n<< /Type /XRef /Size 2000000000 /W [1 4 2] /Index [0 2000000000] /Root 1 0 R /Length ${entries.length} >>\nstream\n${entries}\nendstream\nendobj\n`;
  return pdfWithSignature(signatureBomb(1, 17), objects + xref);
}

/** finding 2, the other way: hundreds of thousands of tiny objects. */
export function manyObjectsPdf(count = 600_000): Buffer {
  const objects = ['1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n'];
  for (let n = 10; n < count + 10; n++) objects.push(`${n} 0 obj ${n} endobj\n`);
  return pdfWithSignature(signatureBomb(1, 17), objects.join(''));
}

/** finding 3: relation cycles, each level multiplying the rows by the enrollments per student. */
export const CYCLIC_QUERY = '{ students { nodes { enrollments { student { enrollments { student { enrollments { student { enrollments { uuid } } } } } } } } } }';

/** finding 7: JSON nested far deeper than any document of this API. */
export const deepJson = (levels = 20_000) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

/** finding 7: text PostgreSQL cannot store (NUL) or JSON cannot represent faithfully (lone surrogates). */
export const UNSTORABLE_TEXT = ['a\u0000b', 'x\ud800y', '\udfff'];
