/**
 * Independent checks of what the document layer writes, by poppler's pdfsig, qpdf and OpenSSL.
 * Each block is skipped when its tool is not installed (Debian: poppler-utils, qpdf, openssl).
 */
import { jest } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createSigningIdentity,
  inspectSignedPdf,
  loadSigningIdentity,
  renderTranscript,
  signPdf,
  type GeneratedSigningBundle,
} from '../src/documents/index.js';
import { pdfWithIndirectFormFields, samplePdf, transcriptData } from './fixtures/documents.js';

const installed = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const describeWith = (tool: string) => (installed(tool) ? describe : describe.skip);

const details = { reason: 'Academic certificate issued', signerName: 'Instituto Técnico', credentialUuid: 'c-1' };
let directory: string;
let identity: GeneratedSigningBundle;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'documents-'));
  identity = createSigningIdentity({ institutionName: 'Instituto Técnico', country: 'PT' });
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function saved(name: string, bytes: Uint8Array): string {
  const path = join(directory, name);
  writeFileSync(path, bytes);
  return path;
}

function run(tool: string, args: string[]): { status: number | null; output: string } {
  const result = spawnSync(tool, args, { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

async function signedSamples(): Promise<Array<[string, Buffer]>> {
  return [
    ['plain', await signPdf(await samplePdf({ objectStreams: false }), identity, details)],
    ['object-streams', await signPdf(await samplePdf({ objectStreams: true }), identity, details)],
    ['form', await signPdf(await pdfWithIndirectFormFields(), identity, details)],
    ['transcript', await signPdf(await renderTranscript(transcriptData(120)), identity, details)],
  ];
}

describeWith('pdfsig')('pdfsig (poppler)', () => {
  it('finds one valid ETSI.CAdES.detached signature covering each whole signed file', async () => {
    for (const [name, signed] of await signedSamples()) {
      const { output } = run('pdfsig', [saved(`${name}.pdf`, signed)]);
      expect({ name, output }).toEqual({ name, output: expect.stringContaining('Signature is Valid.') });
      expect(output).toContain('Signer Certificate Common Name: Instituto Técnico');
      expect(output).toContain('Signature Type: ETSI.CAdES.detached');
      expect(output).toContain('Total document signed');
    }
  });

  it('agrees with the inspector that a changed byte breaks the signature', async () => {
    const signed = await signPdf(await samplePdf({ objectStreams: true }), identity, details);
    const tampered = Buffer.from(signed);
    tampered[200] ^= 0x01;
    expect(run('pdfsig', [saved('tampered.pdf', tampered)]).output).not.toContain('Signature is Valid.');
    expect(await inspectSignedPdf(tampered)).toMatchObject({ intact: false });
  });
});

describeWith('qpdf')('qpdf', () => {
  it('finds no structural errors in signed files', async () => {
    for (const [name, signed] of await signedSamples()) {
      const { status, output } = run('qpdf', ['--check', saved(`${name}-check.pdf`, signed)]);
      expect({ name, status, output }).toEqual({
        name,
        status: 0,
        output: expect.stringContaining('No syntax or stream encoding errors found'),
      });
    }
  });

  it('produces files that the signer refuses once qpdf encrypts them', async () => {
    const plain = saved('to-encrypt.pdf', await samplePdf({ objectStreams: true }));
    const encrypted = join(directory, 'encrypted.pdf');
    execFileSync('qpdf', ['--encrypt', '', 'owner-secret', '256', '--', plain, encrypted]);
    // pdf-lib narrates the encrypted objects it cannot parse on the console; the outcome is what matters.
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const outcome = signPdf(readFileSync(encrypted), identity, details);
    await expect(outcome).rejects.toMatchObject({ reason: 'PDF_ENCRYPTED' });
    warn.mockRestore();
  });
});

describeWith('openssl')('OpenSSL', () => {
  it('reads the generated PKCS#12 bundle with the generated passphrase', () => {
    const { status, output } = run('openssl', ['pkcs12', '-in', saved('identity.p12', identity.p12), '-passin', `pass:${identity.passphrase}`, '-nokeys']);
    expect(status).toBe(0);
    expect(output).toContain('-----BEGIN CERTIFICATE-----');
  });

  it.each(['rsa:2048', 'ec'])('accepts an operator bundle made by OpenSSL with a %s key and signs with it', async (key) => {
    const keyPath = join(directory, `${key}.key`);
    const certificatePath = join(directory, `${key}.crt`);
    const bundlePath = join(directory, `${key}.p12`);
    const keyOptions = key === 'ec' ? ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'] : ['-newkey', key];
    execFileSync(
      'openssl',
      ['req', '-x509', ...keyOptions, '-nodes', '-keyout', keyPath, '-out', certificatePath, '-days', '30', '-subj', '/CN=Operator Supplied/O=Registry'],
      { stdio: 'ignore' },
    );
    execFileSync('openssl', ['pkcs12', '-export', '-inkey', keyPath, '-in', certificatePath, '-out', bundlePath, '-passout', 'pass:operator']);
    const p12 = readFileSync(bundlePath);

    const { fingerprintSha256 } = loadSigningIdentity(p12, 'operator');
    const signed = await signPdf(await samplePdf({ objectStreams: true }), { p12, passphrase: 'operator' }, details);
    expect(await inspectSignedPdf(signed)).toMatchObject({
      intact: true,
      signerCommonName: 'Operator Supplied',
      certificateFingerprintSha256: fingerprintSha256,
    });
    if (installed('pdfsig')) expect(run('pdfsig', [saved(`${key}-signed.pdf`, signed)]).output).toContain('Signature is Valid.');
  });
});
