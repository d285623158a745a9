/**
 * PAdES baseline signatures by incremental update, checked end to end and by independent tools:
 * poppler's pdfsig (NSS) for every signature, qpdf for structure, jsQR for the stamp's QR code.
 */
import { jest } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, PDFName } from 'pdf-lib';
import { createSigningIdentity, inspectSignedPdf, sealPlacement, signPdf, type GeneratedSigningBundle } from '../src/documents/index.js';
import { samplePdf } from './fixtures/documents.js';
import { factories } from './support/factories.js';
import { upload } from './support/files.js';
import { issueFrom, verify } from './support/issued.js';
import { qrOnPage } from './support/qr.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

jest.setTimeout(180_000);

let service: TestService;
let api: ApiClient;
let directory: string;
let dean: GeneratedSigningBundle;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'pades-'));
  dean = createSigningIdentity({ institutionName: 'Office of the Dean', country: 'BR' });
  service = await startTestService({ NOTIFICATION_WORKER: 'off' });
  api = await signIn(service, 'pades');
});
afterAll(async () => {
  await service?.stop();
  rmSync(directory, { recursive: true, force: true });
});

function tool(name: string, args: string[], bytes: Uint8Array): { status: number | null; output: string } {
  const path = join(directory, `${name}-${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(path, bytes);
  const result = spawnSync(name, [...args, path], { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** pdfsig's report, one block per signature. */
function pdfsig(bytes: Uint8Array): string[] {
  return tool('pdfsig', [], bytes)
    .output.split(/^Signature #\d+:$/m)
    .slice(1);
}

/** A diploma signed beforehand by someone else (a dean's office), as institutions upload them. */
async function deanSignedDiploma(objectStreams: boolean): Promise<Buffer> {
  return signPdf(await samplePdf({ objectStreams }), dean, { reason: 'Approved by the dean', signerName: 'Office of the Dean' });
}

describe.each([
  ['a classic cross-reference table', false],
  ['a cross-reference stream', true],
])('issuing from a PDF already signed by another party (%s)', (_kind, objectStreams) => {
  let source: Buffer;
  let issued: Awaited<ReturnType<typeof issueFrom>>;
  let signed: Buffer;

  beforeAll(async () => {
    source = await deanSignedDiploma(objectStreams);
    issued = await issueFrom(api, source);
    expect(issued.response.status).toBe(201);
    signed = issued.signed!;
  });

  it('keeps the upload byte for byte as the prefix of the signed file', () => {
    expect(signed.length).toBeGreaterThan(source.length);
    expect(signed.subarray(0, source.length).equals(source)).toBe(true);
  });

  it('leaves both signatures valid in pdfsig, ours a whole-file ETSI.CAdES.detached one', () => {
    const [earlier, ours] = pdfsig(signed);
    expect(earlier).toContain('Signer Certificate Common Name: Office of the Dean');
    expect(earlier).toContain('Signature is Valid.');
    expect(earlier).toContain('Not total document signed');
    expect(ours).toContain('Signer Certificate Common Name: Instituto Federal');
    expect(ours).toContain('Signature Type: ETSI.CAdES.detached');
    expect(ours).toContain('Signature is Valid.');
    expect(ours).toContain('Total document signed');
  });

  it('passes qpdf --check', () => {
    const { status, output } = tool('qpdf', ['--check'], signed);
    expect({ status, output }).toEqual({ status: 0, output: expect.stringContaining('No syntax or stream encoding errors found') });
  });

  it('shows a QR code on the first page that decodes to the verification URL', async () => {
    expect(await qrOnPage(signed)).toBe(issued.certificate.public_verification_url);
  });

  it('verifies as authentic, reporting both signatures and which one is the issuer’s', async () => {
    const { status, body } = await verify(service.url, signed);
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      verdict: 'authentic',
      document_type: 'certificate',
      claimed_certificate_uuid: issued.certificate.uuid,
      signatures: [
        { intact: true, covers_whole_file: false, signed_by_issuer: false },
        { intact: true, covers_whole_file: true, signed_by_issuer: true, signer_common_name: 'Instituto Federal' },
      ],
    });
  });
});

describe('the signature itself', () => {
  let signed: Buffer;

  beforeAll(async () => {
    const identity = createSigningIdentity({ institutionName: 'Instituto Federal' });
    signed = await signPdf(await samplePdf({ objectStreams: true }), identity, {
      reason: 'Certificate',
      signerName: 'Instituto Federal',
      credentialUuid: 'a2d5c0de-0000-4000-8000-000000000001',
      verificationUrl: 'https://credentials.example.edu/verify/a2d5c0de-0000-4000-8000-000000000001',
      signingTime: new Date('2026-03-04T05:06:07Z'),
      seal: sealPlacement(null),
    });
  });

  it('carries the signing time in /M (no signing-time attribute, as PAdES B-B wants)', async () => {
    const inspection = await inspectSignedPdf(signed);
    expect(inspection).toMatchObject({ signed: true, intact: true, coversWholeFile: true, signedAt: new Date('2026-03-04T05:06:07Z') });
    expect(signed.toString('latin1')).toContain('/M (D:20260304050607Z)');
  });

  it('fails after a one-byte change anywhere in either signed range', async () => {
    const [, length1, start2] = inspectionRange(signed);
    for (const at of [0, 9, Math.floor(length1 / 2), length1 - 1, start2, start2 + Math.floor((signed.length - start2) / 2), signed.length - 1]) {
      const changed = Buffer.from(signed);
      changed[at] ^= 0x01;
      const { signatures } = await inspectSignedPdf(changed);
      expect({ at, intact: signatures.at(-1)?.intact }).toEqual({ at, intact: false });
    }
    const changed = Buffer.from(signed);
    changed[Math.floor(length1 / 2)] ^= 0x01;
    expect(pdfsig(changed)[0]).not.toContain('Signature is Valid.');
  });

  it('puts the stamp on the last page when the template asks for it', async () => {
    const document = await PDFDocument.load(await samplePdf({ objectStreams: false }));
    document.addPage([595, 842]);
    const twoPages = await document.save();
    const url = 'https://credentials.example.edu/verify/last-page';
    const identity = createSigningIdentity({ institutionName: 'Instituto Federal' });
    const seal = sealPlacement({ seal: { page: 'last', x: 40, y: 500, width: 300, height: 100 } });
    const stamped = await signPdf(twoPages, identity, { reason: 'r', signerName: 'Instituto Federal', verificationUrl: url, seal });
    expect(await qrOnPage(stamped, 1)).toBeNull();
    expect(await qrOnPage(stamped, 2)).toBe(url);
    const loaded = await PDFDocument.load(stamped);
    const annots = loaded.getPage(1).node.lookup(PDFName.of('Annots'));
    expect(String(annots && loaded.context.lookup((annots as never as { get(i: number): never }).get(0)))).toContain('/Rect [ 40 500 340 600 ]');
  });
});

function inspectionRange(pdf: Buffer): number[] {
  const match = /\/ByteRange \[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)/.exec(pdf.toString('latin1', pdf.lastIndexOf('/ByteRange')));
  return match!.slice(1).map(Number);
}

describe('a certified PDF that allows no changes', () => {
  it('is refused at issuance with a 422 on file_uuid, nothing issued', async () => {
    const document = await PDFDocument.load(await samplePdf({ objectStreams: false }));
    const { context } = document;
    const certification = context.register(
      context.obj({
        Type: 'Sig',
        Reference: [
          context.obj({ Type: 'SigRef', TransformMethod: 'DocMDP', TransformParams: context.obj({ Type: 'TransformParams', P: 1, V: PDFName.of('1.2') }) }),
        ],
      }),
    );
    document.catalog.set(PDFName.of('Perms'), context.obj({ DocMDP: certification }));
    const certified = await document.save();

    const make = factories(api);
    const institution = await make.institution({ name: 'Instituto Certificado' });
    const course = await make.course({ institution_uuid: institution.uuid });
    const student = await make.student({});
    const file = await upload(api, [[certified, 'certified.pdf']]);
    const body = { institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid, file_uuid: file.body.data[0].uuid, finish: true };
    const response = await api.rest('POST', '/certificates', body);
    expect(response.status).toBe(422);
    expect(response.body.errors.file_uuid[0]).toMatch(/certified.*no changes allowed/i);
    const listed = await api.rest('GET', '/certificates?per_page=100');
    expect(listed.body.data.filter((c: { institution: { uuid: string } }) => c.institution.uuid === institution.uuid)).toEqual([]);
  });
});

describe('a signature made by the earlier adbe.pkcs7.detached code', () => {
  it('still inspects as intact, with the signing time of its CMS attribute and /M', async () => {
    // Signed by the hand-written DER writer this stack replaced (test/fixtures, committed with it).
    const legacy = readFileSync(new URL('./fixtures/legacy-adbe-signed.pdf', import.meta.url));
    expect(await inspectSignedPdf(legacy)).toMatchObject({
      signed: true,
      intact: true,
      coversWholeFile: true,
      signerCommonName: 'Legacy Institute',
      credentialUuid: '0c0ffee0-0000-4000-8000-00000000abcd',
      reason: 'Legacy certificate',
      signedAt: new Date('2026-01-02T03:04:05Z'),
    });
  });

  it('keeps verifying in pdfsig after our signature is added to it', async () => {
    const legacy = readFileSync(new URL('./fixtures/legacy-adbe-signed.pdf', import.meta.url));
    const resigned = await signPdf(legacy, createSigningIdentity({ institutionName: 'Instituto Federal' }), { reason: 'r', signerName: 'Instituto Federal' });
    const [earlier, ours] = pdfsig(resigned);
    expect(earlier).toContain('Signature Type: adbe.pkcs7.detached');
    expect(earlier).toContain('Signature is Valid.');
    expect(ours).toContain('Signature Type: ETSI.CAdES.detached');
    expect(ours).toContain('Signature is Valid.');
  });
});
