import { jest } from '@jest/globals';
import { createHash, X509Certificate } from 'node:crypto';
import forge from 'node-forge';
import { PDFDocument } from 'pdf-lib';
import {
  createSigningIdentity,
  DocumentError,
  inspectSignedPdf,
  loadSigningIdentity,
  prepareSigner,
  signPdf,
  type GeneratedSigningBundle,
} from '../src/documents/index.js';
import { CREDENTIAL_UUID, encryptedPdf, pdfWithIndirectFormFields, samplePdf, VERIFICATION_URL } from './fixtures/documents.js';

const INSTITUTION = 'Universidade Federal de Exemplo';
const SIGNED_AT = new Date('2025-07-01T12:00:00Z');
const details = {
  reason: 'Academic certificate issued',
  signerName: INSTITUTION,
  location: 'Brasília, BR',
  credentialUuid: CREDENTIAL_UUID,
  verificationUrl: VERIFICATION_URL,
  signingTime: SIGNED_AT,
};

let identity: GeneratedSigningBundle;
beforeAll(() => {
  identity = createSigningIdentity({ institutionName: INSTITUTION, country: 'BR', validityYears: 5 });
});

const flipped = (pdf: Buffer, at: number) => {
  const copy = Buffer.from(pdf);
  copy[at] ^= 0x01;
  return copy;
};

const byteRangeOf = (pdf: Buffer) => /\/ByteRange\s*\[\s*(\d+) (\d+) (\d+) (\d+)/.exec(pdf.toString('latin1'))!.slice(1).map(Number);

describe('signing identities', () => {
  it('generates an RSA-2048 self-signed certificate naming the institution, for signing documents only', () => {
    const x509 = new X509Certificate(identity.certificatePem);
    expect(x509.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(x509.subject).toBe(`CN=${INSTITUTION}\nO=${INSTITUTION}\nC=BR`);
    expect(x509.issuer).toBe(x509.subject);
    expect(x509.verify(x509.publicKey)).toBe(true);
    expect(identity.fingerprintSha256).toBe(x509.fingerprint256.replaceAll(':', '').toLowerCase());
    expect(identity.notAfter.getUTCFullYear()).toBe(new Date().getUTCFullYear() + 5);

    const usage = forge.pki.certificateFromPem(identity.certificatePem).getExtension('keyUsage') as Record<string, unknown>;
    expect(usage).toMatchObject({ critical: true, digitalSignature: true, nonRepudiation: true, keyCertSign: false });
    expect(identity.passphrase.length).toBeGreaterThanOrEqual(32);
  });

  it('keeps names outside ASCII intact and leaves out a country that is not a two-letter code', () => {
    const other = createSigningIdentity({ institutionName: 'Université Côte d’Azur, Nice', country: 'France' });
    expect(new X509Certificate(other.certificatePem).subject).toBe('CN=Université Côte d’Azur\\, Nice\nO=Université Côte d’Azur\\, Nice');
  });

  it('loads its own bundle back with the same metadata', () => {
    const { p12, passphrase, ...metadata } = identity;
    expect(loadSigningIdentity(p12, passphrase)).toEqual(metadata);
  });

  it('refuses a wrong passphrase with a clear error', () => {
    expect(() => loadSigningIdentity(identity.p12, 'not-the-passphrase')).toThrow(
      expect.objectContaining({ name: 'DocumentError', reason: 'IDENTITY_WRONG_PASSPHRASE', message: 'The PKCS#12 passphrase is wrong.' }),
    );
  });

  it('refuses a bundle that holds a certificate but no private key', () => {
    const certificate = forge.pki.certificateFromPem(identity.certificatePem);
    const asn1 = forge.pkcs12.toPkcs12Asn1(null, [certificate], 'secret', { algorithm: 'aes256' });
    const p12 = Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
    expect(() => loadSigningIdentity(p12, 'secret')).toThrow(
      expect.objectContaining({ reason: 'IDENTITY_INCOMPLETE', message: 'The PKCS#12 bundle holds no private key.' }),
    );
  });

  it('refuses bytes that are not a PKCS#12 bundle', () => {
    expect(() => loadSigningIdentity(Buffer.from('not a bundle'), 'x')).toThrow(expect.objectContaining({ reason: 'IDENTITY_UNREADABLE' }));
  });
});

describe('signing and inspecting PDFs', () => {
  it.each([false, true])('signs an uploaded PDF (object streams: %s) that inspects as signed, intact and whole', async (objectStreams) => {
    const signed = await signPdf(await samplePdf({ objectStreams }), identity, details);

    expect(await inspectSignedPdf(signed)).toEqual({
      signed: true,
      intact: true,
      coversWholeFile: true,
      signerCommonName: INSTITUTION,
      certificateFingerprintSha256: identity.fingerprintSha256,
      signedAt: SIGNED_AT,
      credentialUuid: CREDENTIAL_UUID,
      reason: details.reason,
      signatures: [expect.objectContaining({ readable: true, signatureValid: true, digestMatches: true, intact: true, coversWholeFile: true })],
      sha256: createHash('sha256').update(signed).digest('hex'),
    });
    expect(signed.toString('latin1')).toContain('/SubFilter /ETSI.CAdES.detached');
  });

  it('writes the credential into the info dictionary so a later upload can be traced', async () => {
    const signed = await signPdf(await samplePdf({ objectStreams: true }), identity, details);
    const document = await PDFDocument.load(signed, { updateMetadata: false });
    expect(document.getSubject()).toBe(`Credential ${CREDENTIAL_UUID}, verify at ${VERIFICATION_URL}`);
    expect(document.getKeywords()).toBe(`${CREDENTIAL_UUID} ${VERIFICATION_URL}`);
  });

  it('keeps the fields of an uploaded form whose field list is an indirect object', async () => {
    const signed = await signPdf(await pdfWithIndirectFormFields(), identity, details);
    const fields = (await PDFDocument.load(signed))
      .getForm()
      .getFields()
      .map((field) => field.getName());
    expect(fields).toEqual(['student.name', 'Signature1']);
    expect(await inspectSignedPdf(signed)).toMatchObject({ signed: true, intact: true, coversWholeFile: true });
  });

  it('carries parentheses, backslashes and accents of the reason through the signature dictionary', async () => {
    const reason = 'Emitido (2ª via) \\ São Paulo';
    const signed = await signPdf(await samplePdf({ objectStreams: true }), identity, { ...details, reason });
    expect(await inspectSignedPdf(signed)).toMatchObject({ intact: true, reason });
  });

  it('reports a one-byte change anywhere in the covered bytes as not intact', async () => {
    const signed = await signPdf(await samplePdf({ objectStreams: true }), identity, details);
    const [, length1, start2, length2] = byteRangeOf(signed);
    const positions = [0, 9, Math.floor(length1 / 2), length1 - 1, start2, start2 + Math.floor(length2 / 2), signed.length - 1];
    for (const at of positions) {
      expect({ at, ...(await inspectSignedPdf(flipped(signed, at))) }).toMatchObject({ at, intact: false });
    }
  });

  it('reports a changed signature value as not intact', async () => {
    const signed = await signPdf(await samplePdf({ objectStreams: true }), identity, details);
    const [, length1] = byteRangeOf(signed);
    const tampered = Buffer.from(signed);
    // The last hex digits of the CMS are the RSA signature; 'a' ↔ 'b' keeps it valid hex. The CMS ends
    // where its outer DER length says (searching for the zero padding fails when the signature has zeros).
    const holeStart = length1 + 1;
    const header = Buffer.from(signed.subarray(holeStart, holeStart + 8).toString('latin1'), 'hex');
    const cmsBytes =
      header[1]! & 0x80 ? 2 + (header[1]! & 0x7f) + header.subarray(2, 2 + (header[1]! & 0x7f)).readUIntBE(0, header[1]! & 0x7f) : 2 + header[1]!;
    const end = holeStart + 2 * cmsBytes - 2;
    tampered[end] = tampered[end] === 0x61 ? 0x62 : 0x61;
    expect(await inspectSignedPdf(tampered)).toMatchObject({ signed: true, intact: false });
  });

  it('reports bytes appended after signing as not covering the whole file, with the signed part still intact', async () => {
    const signed = await signPdf(await samplePdf({ objectStreams: true }), identity, details);
    const appended = Buffer.concat([signed, Buffer.from('\n1 0 obj\n<< /Subject (changed later) >>\nendobj\n')]);
    expect(await inspectSignedPdf(appended)).toMatchObject({
      signed: true,
      intact: true,
      coversWholeFile: false,
      credentialUuid: CREDENTIAL_UUID,
    });
  });

  it('reports an unsigned PDF as unsigned', async () => {
    expect(await inspectSignedPdf(await samplePdf({ objectStreams: true }))).toEqual({
      signed: false,
      intact: false,
      coversWholeFile: false,
      signatures: [],
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it.each([
    ['random bytes', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251))],
    ['an empty file', Buffer.alloc(0)],
    ['a byte range past the end', Buffer.from('%PDF-1.7\n/ByteRange [0 10 20 999999] /Contents <00>')],
    ['a hole that is not hex', Buffer.from('%PDF-1.7\n/ByteRange [0 30 40 5]xxxxxxxxxxxxx<zz>oooooo')],
    ['a hole holding junk hex', Buffer.from('%PDF-1.7\n/ByteRange [0 37 43 0]     <3082ffff>')],
  ])('reports %s as unsigned without throwing', async (_, bytes) => {
    expect(await inspectSignedPdf(bytes)).toMatchObject({ signed: false, intact: false });
  });

  it('refuses an encrypted PDF with a DocumentError the caller can answer with 422', async () => {
    const error = await signPdf(await encryptedPdf(), identity, details).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DocumentError);
    expect(error).toMatchObject({ reason: 'PDF_ENCRYPTED' });
  });

  it.each([
    ['text', Buffer.from('this is not a PDF at all')],
    ['a truncated PDF', Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R')],
  ])('refuses %s with a DocumentError', async (_, bytes) => {
    // pdf-lib narrates each object it fails to parse on the console; the outcome is what matters here.
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const error = await signPdf(bytes, identity, details).catch((caught: unknown) => caught);
    warn.mockRestore();
    expect(error).toBeInstanceOf(DocumentError);
    expect((error as DocumentError).reason).toMatch(/^PDF_(UNREADABLE|WITHOUT_PAGES)$/);
  });

  it('opens a bundle once: equal bundles share the prepared signer, a wrong passphrase is still refused', () => {
    const signer = prepareSigner(identity);
    expect(prepareSigner({ p12: Buffer.from(identity.p12), passphrase: identity.passphrase })).toBe(signer);
    expect(() => prepareSigner({ p12: identity.p12, passphrase: 'guess' })).toThrow(expect.objectContaining({ reason: 'IDENTITY_WRONG_PASSPHRASE' }));
  });
});
