/**
 * Hostile CMS in the /Contents of a signature: truncated, mutated, nested deep, declaring absurd
 * lengths, holding too many nodes, or simply too big. The reader must refuse each cheaply, the
 * inspection must never throw, and POST /api/v1/verify must answer every one without a 5xx.
 */
import { jest } from '@jest/globals';
import { buildDetachedSignature } from '../src/documents/cms-signature.js';
import { readCmsSigner } from '../src/documents/cms-reader.js';
import { inspectSignedPdf } from '../src/documents/index.js';
import { contextTag, derNull, Oid, oid, sequence, set, tlv } from './support/der-builder.js';
import { appendSignature, strangerKey } from './support/hostile-pdf.js';
import { verify } from './support/issued.js';
import { diplomaPdf } from './support/pdf.js';
import { startTestService, type TestService } from './support/service.js';

jest.setTimeout(180_000);

const stranger = strangerKey('Fuzz Signer');
const genuine = buildDetachedSignature({ content: Buffer.from('some content'), privateKey: stranger.privateKey, certificate: stranger.certificate, chain: [] });

/** A small deterministic PRNG (mulberry32), so a failure can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function nestedDefinite(depth: number): Buffer {
  let inner: Buffer = derNull();
  for (let i = 0; i < depth; i++) inner = sequence(inner);
  return inner;
}

const signedDataWith = (...parts: Buffer[]) => sequence(oid(Oid.signedData), tlv(contextTag(0), sequence(...parts)));

function hostileStructures(): [string, Buffer][] {
  const next = random(20261123);
  const cases: [string, Buffer][] = [];
  for (let cut = 0; cut < genuine.length; cut += 97) cases.push([`truncated at ${cut}`, genuine.subarray(0, cut)]);
  for (let i = 0; i < 60; i++) {
    const mutated = Buffer.from(genuine);
    for (let flips = 1 + Math.floor(next() * 4); flips > 0; flips--) mutated[Math.floor(next() * mutated.length)] = Math.floor(next() * 256);
    cases.push([`mutation ${i}`, mutated]);
  }
  cases.push(
    ['definite nesting 5,000 deep', nestedDefinite(5_000)],
    ['indefinite-length nesting 100,000 deep', Buffer.alloc(200_000, Buffer.from([0x30, 0x80]))],
    ['a SignedData nested 2,000 deep', signedDataWith(nestedDefinite(2_000))],
    ['a length of four gigabytes', Buffer.concat([Buffer.from([0x30, 0x84, 0xff, 0xff, 0xff, 0xff]), genuine.subarray(0, 100)])],
    ['a length longer than the length field allows', Buffer.from([0x30, 0x89, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0])],
    ['100,000 NULLs in one SET', signedDataWith(set(Buffer.alloc(200_000, Buffer.from([0x05, 0x00]))))],
    ['a certificate set of 5,000 empty sequences', signedDataWith(derNull(), tlv(contextTag(0), ...Array.from({ length: 5_000 }, () => sequence())))],
    ['600 KB of a valid prefix and zeros', Buffer.concat([genuine, Buffer.alloc(600 * 1024)])],
    ['a 2 MB OCTET STRING', sequence(oid(Oid.signedData), tlv(contextTag(0), tlv(0x04, Buffer.alloc(2 * 1024 * 1024, 0x41))))],
  );
  return cases;
}

describe('the CMS reader on hostile structures', () => {
  it('returns or throws for each, and the inspection reports it as not intact without throwing', async () => {
    const heapBefore = process.memoryUsage().heapUsed;
    for (const [name, cms] of hostileStructures()) {
      try {
        readCmsSigner(cms);
      } catch (error) {
        expect({ name, error: error instanceof Error }).toEqual({ name, error: true });
      }
      const pdf = appendSignature(Buffer.from('%PDF-1.7\n'), () => cms, Math.max(cms.length, 16));
      const inspection = await inspectSignedPdf(pdf);
      expect({ name, intact: inspection.intact, throughout: inspection.signatures.every((s) => !s.intact) }).toEqual({ name, intact: false, throughout: true });
    }
    // Bounded memory: nothing of the structures above is kept or expanded past the limits.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(256 * 1024 * 1024);
  });

  it('still reads the genuine signature it was derived from', () => {
    expect(readCmsSigner(genuine)).toMatchObject({ candidates: [stranger.certificate], digestAlgorithm: Oid.sha256 });
  });
});

describe('POST /api/v1/verify on hostile signatures', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ NOTIFICATION_WORKER: 'off' });
  });
  afterAll(() => service?.stop());

  it('answers every one with a verdict that vouches for nothing (invalid, not issued here) or a 4xx, never a server error', async () => {
    const diploma = Buffer.from(await diplomaPdf('Fuzzed diploma'));
    const cases = hostileStructures().filter((_, i) => i % 4 === 0);
    for (const [name, cms] of cases) {
      const { status, body } = await verify(
        service.url,
        appendSignature(diploma, () => cms, Math.max(cms.length, 16)),
      );
      const outcome = status === 200 ? body.data.verdict : status >= 400 && status < 500 ? '4xx' : status;
      expect({ name, outcome }).toEqual({ name, outcome: expect.stringMatching(/^(invalid|not_issued_here|4xx)$/) });
    }
  });
});
