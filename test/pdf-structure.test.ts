import { deflateSync } from 'node:zlib';
import { checkPdfStructure, PDF_LIMITS } from '../src/documents/pdf-structure.js';
import type { SignatureReport } from '../src/documents/index.js';
import { decideVerdict } from '../src/verification/document-verdict.js';
import { samplePdf } from './fixtures/documents.js';

const pdf = (body: string | Buffer) => Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from(body), Buffer.from('\n%%EOF\n')]);

describe('structural pre-checks', () => {
  it('pass ordinary PDFs, with and without object streams', async () => {
    for (const objectStreams of [false, true]) expect(checkPdfStructure(Buffer.from(await samplePdf({ objectStreams })))).toBeUndefined();
  });

  it.each([
    ['an absurd /Size', '1 0 obj << /Type /XRef /Size 2000000000 /W [1 2 1] >> endobj', /cross-reference table declares too many objects/],
    ['an absurd /Index', '1 0 obj << /Type /XRef /Size 10 /Index [0 5000000] /W [1 2 1] >> endobj', /declares too many objects/],
    [
      'object streams that add up past the limit',
      Array.from({ length: 3 }, (_, i) => `${i + 1} 0 obj << /Type /ObjStm /N 40000 /First 1 >> endobj`).join('\n'),
      /declares too many objects/,
    ],
    [
      'more objects written out than the limit',
      Array.from({ length: PDF_LIMITS.objects + 1 }, (_, i) => `${i + 1} 0 obj null endobj`).join('\n'),
      /holds too many objects/,
    ],
    ['xref entries wider than 8 bytes', '1 0 obj << /Type /XRef /Size 3 /W [1 4000000000 1] >> endobj', /malformed/],
    ['a stream longer than the file', '1 0 obj << /Length 99999999 >> stream\nx\nendstream endobj', /longer than the file/],
    ['arrays nested too deeply', `1 0 obj ${'['.repeat(PDF_LIMITS.nesting + 1)}${']'.repeat(PDF_LIMITS.nesting + 1)} endobj`, /nested too deeply/],
    ['dictionaries nested too deeply', `1 0 obj ${'<< /A '.repeat(PDF_LIMITS.nesting + 1)}${'>>'.repeat(PDF_LIMITS.nesting + 1)} endobj`, /nested too deeply/],
    ['too many signatures', Array.from({ length: PDF_LIMITS.signatures + 1 }, () => '/ByteRange [0 1 2 3]').join('\n'), /too many signatures/],
  ])('refuse %s', (_, body, reason) => {
    expect(checkPdfStructure(pdf(body))).toMatch(reason);
  });

  it('do not count brackets inside strings, comments or streams', () => {
    const deep = '['.repeat(PDF_LIMITS.nesting * 2);
    const body = `1 0 obj << /T (${deep}) >> endobj\n% ${deep}\n2 0 obj << /Length ${deep.length} >> stream\n${deep}\nendstream endobj`;
    expect(checkPdfStructure(pdf(body))).toBeUndefined();
  });

  it('refuse an object stream that inflates past its budget', () => {
    const data = deflateSync(Buffer.alloc(PDF_LIMITS.inflatedStream + 1024));
    const head = Buffer.from(`1 0 obj << /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${data.length} >>\nstream\n`);
    expect(checkPdfStructure(pdf(Buffer.concat([head, data, Buffer.from('\nendstream\nendobj')])))).toMatch(/inflates to too many bytes/);
  });
});

describe('verdicts', () => {
  const ours = 'f'.repeat(64);
  const foreign = 'a'.repeat(64);
  const keys = new Map([[ours, 'institution-1']]);
  const signature = (fields: Partial<SignatureReport>): SignatureReport => ({
    byteRange: [0, 1, 2, 3],
    readable: true,
    signatureValid: true,
    digestMatches: true,
    intact: true,
    coversWholeFile: true,
    certificateFingerprintSha256: ours,
    ...fields,
  });
  const verdict = (signatures: SignatureReport[], claimed?: { institutionUuid: string; matchesIssuedDocument: boolean }, refused?: string) =>
    decideVerdict({ inspection: { signed: signatures.length > 0, intact: false, coversWholeFile: false, signatures, refused }, ourKeys: keys, claimed });
  const issued = { institutionUuid: 'institution-1', matchesIssuedDocument: true };

  it.each([
    ['authentic: intact, whole, our key for the named institution, bytes as issued', [signature({})], issued, undefined, 'authentic'],
    ['not byte for byte the issued document', [signature({})], { ...issued, matchesIssuedDocument: false }, undefined, 'modified_after_signing'],
    ['bytes appended after our signature', [signature({ coversWholeFile: false })], issued, undefined, 'modified_after_signing'],
    ['covered bytes changed under our valid signature', [signature({ digestMatches: false, intact: false })], issued, undefined, 'modified_after_signing'],
    [
      'our key but another institution’s certificate named',
      [signature({})],
      { ...issued, institutionUuid: 'institution-2' },
      undefined,
      'modified_after_signing',
    ],
    ['a stranger’s valid signature', [signature({ certificateFingerprintSha256: foreign })], undefined, undefined, 'not_issued_here'],
    ['our certificate named but the signature does not verify', [signature({ signatureValid: false, intact: false })], issued, undefined, 'invalid'],
    [
      'only unreadable signatures',
      [signature({ readable: false, signatureValid: false, intact: false, certificateFingerprintSha256: undefined })],
      undefined,
      undefined,
      'invalid',
    ],
    ['refused by a limit', [], undefined, 'too big', 'invalid'],
    ['no signature', [], undefined, undefined, 'unsigned'],
  ] as const)('%s', (_, signatures, claimed, refused, expected) => {
    expect(verdict([...signatures], claimed, refused)).toBe(expected);
  });
});
