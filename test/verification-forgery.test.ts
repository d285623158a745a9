import { jest } from '@jest/globals';
import { buildDetachedSignature } from '../src/documents/cms-signature.js';
import { readCmsSigner } from '../src/documents/cms-reader.js';
import { locateSignatures } from '../src/documents/signature-locator.js';
import { byteRangeOf, withReplacedText } from './support/forgery.js';
import { appendSignature, signWith, strangerKey } from './support/hostile-pdf.js';
import { issueFrom, verify } from './support/issued.js';
import { diplomaPdf, pdfText } from './support/pdf.js';
import { signIn, startTestService, type TestService } from './support/service.js';

jest.setTimeout(60_000);

let service: TestService;
let certificate: { uuid: string };
let signed: Buffer;
const stranger = strangerKey('Instituto Federal');
const FACTS = ['Maria Oliveira', 'Data Engineering'];

beforeAll(async () => {
  service = await startTestService({ NOTIFICATION_WORKER: 'off' });
  const issued = await issueFrom(await signIn(service, 'acme'), await diplomaPdf('Bachelor of Data Engineering'), 'Maria Oliveira');
  certificate = issued.certificate;
  signed = issued.signed!;
});
afterAll(() => service.stop());

/** The verdict's data, after checking that no certificate fact leaked into it. */
async function refused(pdf: Buffer) {
  const { status, body } = await verify(service.url, pdf);
  expect(status).toBe(200);
  for (const fact of FACTS) expect(JSON.stringify(body)).not.toContain(fact);
  expect(body.data).toMatchObject({ document_type: null, certificate: null });
  expect(body.data.verdict).not.toBe('authentic');
  return body.data;
}

it('the untouched issued PDF is authentic, with the certificate facts', async () => {
  const { body } = await verify(service.url, signed);
  expect(body.data).toMatchObject({
    verdict: 'authentic',
    document_type: 'certificate',
    claimed_certificate_uuid: certificate.uuid,
    signatures: [{ intact: true, covers_whole_file: true, signed_by_issuer: true, signer_common_name: 'Instituto Federal' }],
    certificate: { uuid: certificate.uuid, status: 'valid', recipient_name: 'Maria Oliveira', course: 'Data Engineering' },
  });
});

it('an incremental update that changes the visible text is modified_after_signing, without facts', async () => {
  const tampered = await withReplacedText(signed, 'PhD in Everything - TAMPERED');
  expect(await pdfText(tampered)).toContain('PhD in Everything - TAMPERED');
  const data = await refused(tampered);
  expect(data).toMatchObject({
    verdict: 'modified_after_signing',
    claimed_certificate_uuid: certificate.uuid,
    signatures: [{ intact: true, covers_whole_file: false, signed_by_issuer: true, signer_common_name: null }],
  });
});

it('a second signature appended by someone else does not make the changed file authentic', async () => {
  const resigned = appendSignature(await withReplacedText(signed, 'PhD in Everything'), signWith(stranger));
  const data = await refused(resigned);
  expect(data.verdict).toBe('modified_after_signing');
  expect(data.signatures).toEqual([
    expect.objectContaining({ intact: true, covers_whole_file: false, signed_by_issuer: true }),
    expect.objectContaining({ intact: true, covers_whole_file: true, signed_by_issuer: false, signer_common_name: null }),
  ]);
});

describe('signature wrapping', () => {
  it('a /ByteRange rewritten to leave the end of the file uncovered', async () => {
    const { at, text, range } = byteRangeOf(signed);
    const shorter = text.replace(new RegExp(`${range[3]}\\]$`), `${String(range[3] - 40).padStart(String(range[3]).length, '0')}]`);
    const wrapped = Buffer.from(signed);
    wrapped.write(shorter, at, 'latin1');
    expect((await refused(wrapped)).verdict).toBe('modified_after_signing');
  });

  it('content hidden in the /Contents hole beside the signature', async () => {
    const [, length1, start2] = byteRangeOf(signed).range;
    const injection = '>(PhD in Everything - TAMPERED)<';
    const wrapped = Buffer.from(signed);
    wrapped.write(injection, start2 - 1 - injection.length - 2, 'latin1');
    expect(wrapped.subarray(0, length1).equals(signed.subarray(0, length1))).toBe(true);
    expect((await refused(wrapped)).verdict).toBe('invalid');
  });

  it('a copy of the signature dictionary appended with new content', async () => {
    const { at } = byteRangeOf(signed);
    const dictionary = signed.subarray(signed.lastIndexOf('<<', at), signed.indexOf('>>', signed.indexOf('/Contents', at)) + 2);
    const wrapped = Buffer.concat([signed, Buffer.from('\n99 0 obj\n', 'latin1'), dictionary, Buffer.from('\nendobj\n%%EOF\n', 'latin1')]);
    expect((await refused(wrapped)).verdict).toBe('modified_after_signing');
  });
});

describe('signatures that are not ours', () => {
  it('a file signed with a self-made certificate bearing the institution’s name is not_issued_here', async () => {
    const forged = appendSignature(Buffer.from(await diplomaPdf('Bachelor of Data Engineering')), signWith(stranger));
    expect(await refused(forged)).toMatchObject({
      verdict: 'not_issued_here',
      signatures: [{ intact: true, signed_by_issuer: false, signer_common_name: null }],
    });
  });

  it('a signature that embeds the institution’s real certificate but is made with another key is invalid', async () => {
    const ours = readCmsSigner(locateSignatures(signed, 1)[0].cms!).certificates[0];
    const posing = (content: Buffer) =>
      buildDetachedSignature({ content, privateKey: stranger.privateKey, certificate: ours, chain: [], signingTime: new Date() });
    const forged = appendSignature(Buffer.from(await diplomaPdf('Bachelor of Data Engineering')), posing);
    expect(await refused(forged)).toMatchObject({ verdict: 'invalid', signatures: [{ intact: false, signed_by_issuer: false }] });
  });

  it('an unsigned PDF is unsigned', async () => {
    expect(await refused(Buffer.from(await diplomaPdf('Bachelor of Data Engineering')))).toEqual({
      verdict: 'unsigned',
      document_type: null,
      claimed_certificate_uuid: null,
      signatures: [],
      certificate: null,
      anchor: null,
    });
  });
});
