import { randomBytes, type KeyObject } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { buildDetachedSignature } from '../../src/documents/cms-signature.js';
import { contextTag, derNull, integer, octetString, Oid, oid, sequence, set, Tag, tlv } from './der-builder.js';
import { createSigningIdentity } from '../../src/documents/index.js';
import { readPkcs12 } from '../../src/documents/pkcs12.js';

/** A key and self-made certificate anyone could create, e.g. a forger posing as a university. */
export interface SigningKey {
  privateKey: KeyObject;
  certificate: Buffer;
}

export function strangerKey(name = 'Universidade Federal de Exemplo'): SigningKey {
  const identity = createSigningIdentity({ institutionName: name });
  const { privateKey, certificate } = readPkcs12(identity.p12, identity.passphrase);
  return { privateKey, certificate };
}

export const signWith = (key: SigningKey) => (content: Buffer) =>
  buildDetachedSignature({ content, privateKey: key.privateKey, certificate: key.certificate, chain: [], signingTime: new Date() });

const pad = (n: number) => String(n).padStart(10, '0');

/**
 * Appends a signature dictionary whose /ByteRange covers everything but its own /Contents hole, as an
 * incremental update does: `prefix` stays as it was, the new signature covers the whole result.
 */
export function appendSignature(prefix: Buffer, sign: (content: Buffer) => Buffer, holeBytes = 4096): Buffer {
  const dictionary = (a: number, b: number, c: number) =>
    `\n90 0 obj\n<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /adbe.pkcs7.detached /ByteRange [0 ${pad(a)} ${pad(b)} ${pad(c)}] /Contents `;
  const tail = Buffer.from(' >>\nendobj\n%%EOF\n', 'latin1');
  const start = prefix.length + dictionary(0, 0, 0).length;
  const holeLength = 2 * holeBytes + 2;
  const head = Buffer.concat([prefix, Buffer.from(dictionary(start, start + holeLength, tail.length), 'latin1')]);
  const cms = sign(Buffer.concat([head, tail]));
  if (cms.length > holeBytes) throw new Error(`the CMS (${cms.length} bytes) does not fit the hole`);
  return Buffer.concat([head, Buffer.from(`<${cms.toString('hex').padEnd(2 * holeBytes, '0')}>`, 'latin1'), tail]);
}

const NAME = sequence(set(sequence(oid(Oid.commonName), tlv(Tag.UTF8_STRING, Buffer.from('Exponent Bomb')))));
const SERIAL = tlv(Tag.INTEGER, Buffer.from([0x01, 0x23, 0x45]));
const SHA256_WITH_RSA = sequence(oid('1.2.840.113549.1.1.11'), derNull());

/** An RSA-3072 certificate whose public exponent is 3071 bits: one verification with it costs milliseconds. */
export function hugeExponentCertificate(): Buffer {
  const modulus = randomBytes(384);
  modulus[0] |= 0x80;
  modulus[383] |= 0x01;
  const exponent = randomBytes(384);
  exponent[0] = 0x40 | (exponent[0] & 0x3f);
  exponent[383] |= 0x01;
  const rsaKey = sequence(tlv(Tag.INTEGER, Buffer.concat([Buffer.from([0]), modulus])), tlv(Tag.INTEGER, exponent));
  const spki = sequence(sequence(oid(Oid.rsaEncryption), derNull()), tlv(Tag.BIT_STRING, Buffer.concat([Buffer.from([0]), rsaKey])));
  const validity = sequence(tlv(Tag.UTC_TIME, Buffer.from('250101000000Z')), tlv(Tag.UTC_TIME, Buffer.from('350101000000Z')));
  const tbs = sequence(tlv(contextTag(0), integer(2)), SERIAL, SHA256_WITH_RSA, NAME, validity, NAME, spki);
  return sequence(tbs, SHA256_WITH_RSA, tlv(Tag.BIT_STRING, Buffer.concat([Buffer.from([0]), randomBytes(384)])));
}

/**
 * A SignedData carrying `copies` of one huge-exponent certificate and a signer without signed
 * attributes; its identifier names that certificate only when `named`.
 */
export function certificateBombCms(copies: number, named: boolean): Buffer {
  const certificate = hugeExponentCertificate();
  const sid = named ? sequence(NAME, SERIAL) : sequence(NAME, integer(7));
  const signerInfo = sequence(integer(1), sid, sequence(oid(Oid.sha256)), sequence(oid(Oid.rsaEncryption), derNull()), octetString(randomBytes(384)));
  const certificates = tlv(contextTag(0), ...Array.from({ length: copies }, () => certificate));
  const signedData = sequence(integer(1), set(sequence(oid(Oid.sha256))), sequence(oid(Oid.data)), certificates, set(signerInfo));
  return sequence(oid(Oid.signedData), tlv(contextTag(0), signedData));
}

/** A minimal one-page PDF body (no trailer), numbered from 1, to build hostile files on. */
function pdfBody(extraObjects: string[] = []): string {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>',
    ...extraObjects,
  ];
  return `%PDF-1.7\n${objects.map((object, i) => `${i + 1} 0 obj\n${object}\nendobj\n`).join('')}`;
}

/** A few kilobytes whose cross-reference stream declares two billion objects. */
export function xrefSizeBomb(): Buffer {
  const entries = Buffer.from([1, 0, 9, 0, 1, 0, 60, 0]);
  const head = pdfBody();
  const xref = `4 0 obj\n<< /Type /XRef /Size 2000000000 /W [1 2 1] /Root 1 0 R /Length ${entries.length} >>\nstream\n`;
  return Buffer.concat([Buffer.from(head + xref, 'latin1'), entries, Buffer.from(`\nendstream\nendobj\nstartxref\n${head.length}\n%%EOF\n`, 'latin1')]);
}

/** `streams` compressed object streams of `perStream` one-byte objects each: hundreds of thousands of objects in little space. */
export function tinyObjectsBomb(streams: number, perStream: number): Buffer {
  const parts: Buffer[] = [Buffer.from(pdfBody(), 'latin1')];
  let number = 10;
  for (let s = 0; s < streams; s++) {
    const header = Array.from({ length: perStream }, (_, i) => `${number + i} ${2 * i}`).join(' ') + '\n';
    const data = deflateSync(Buffer.from(header + '0 '.repeat(perStream), 'latin1'));
    const dictionary = `<< /Type /ObjStm /N ${perStream} /First ${header.length} /Filter /FlateDecode /Length ${data.length} >>`;
    parts.push(Buffer.from(`${1000 + s} 0 obj\n${dictionary}\nstream\n`, 'latin1'), data, Buffer.from('\nendstream\nendobj\n', 'latin1'));
    number += perStream;
  }
  return Buffer.concat(parts);
}

/** A one-page PDF whose one extra dictionary holds `count` distinct names: pdf-lib interns every name it parses for the life of its thread. */
export function manyNamesPdf(count: number): Buffer {
  const entries = Array.from({ length: count }, (_, i) => `/Name${i.toString(36)} ${i % 10}`).join(' ');
  return Buffer.from(pdfBody([`<< ${entries} >>`]), 'latin1');
}

/** A legal but laborious PDF: `count` objects of `width` numbers each, just inside the structural limits. */
export function laboriousPdf(count: number, width: number): Buffer {
  const row = Array.from({ length: width }, (_, i) => i).join(' ');
  const objects = Array.from({ length: count }, (_, i) => `${i + 10} 0 obj\n[${row}]\nendobj\n`).join('');
  return Buffer.from(pdfBody() + objects, 'latin1');
}
