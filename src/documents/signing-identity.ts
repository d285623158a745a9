import { createPrivateKey, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import forge from 'node-forge';
import { describeCertificate, type CertificateSummary } from './certificate-info.js';
import { readPkcs12, writePkcs12, type SigningKeyMaterial } from './pkcs12.js';

/** A PKCS#12 bundle and the passphrase that opens it, as operators hand them over. */
export interface SigningIdentityBundle {
  p12: Buffer;
  passphrase: string;
}

export type SigningIdentityMetadata = Pick<CertificateSummary, 'certificatePem' | 'fingerprintSha256' | 'notAfter'>;

/** A PKCS#12 bundle fresh from `createSigningIdentity`, with its certificate's facts. */
export type GeneratedSigningBundle = SigningIdentityBundle & SigningIdentityMetadata;

/** An opened identity: the key objects themselves, ready to sign or to be sealed for storage. */
export type OpenedSigningIdentity = SigningKeyMaterial & SigningIdentityMetadata;

export interface SigningIdentityOptions {
  institutionName: string;
  /** ISO 3166 alpha-2 code; anything else is left out of the certificate rather than mis-encoded. */
  country?: string;
  validityYears?: number;
  now?: Date;
}

const DEFAULT_VALIDITY_YEARS = 10;
// X.520 upper bound for CN and O.
const MAX_NAME_LENGTH = 64;
// Verifiers with a slightly slow clock would otherwise see a certificate that is not valid yet.
const CLOCK_SKEW_MS = 5 * 60 * 1000;

/** Generates an institution's RSA-2048 key and self-signed certificate. */
export function generateSigningIdentity(options: SigningIdentityOptions): OpenedSigningIdentity {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const certificate = selfSignedCertificate(options, privateKey, publicKey);
  const der = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(certificate)).getBytes(), 'binary');
  return { privateKey: createPrivateKey(privateKey), certificate: der, chain: [], ...metadata(der) };
}

/** Generates an institution's RSA-2048 key and self-signed certificate, bundled as PKCS#12. */
export function createSigningIdentity(options: SigningIdentityOptions): GeneratedSigningBundle {
  const generated = generateSigningIdentity(options);
  const certificate = forge.pki.certificateFromAsn1(forge.asn1.fromDer(generated.certificate.toString('binary')));
  const passphrase = randomBytes(32).toString('base64url');
  const p12 = writePkcs12(generated.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, certificate, passphrase);
  return { p12, passphrase, ...metadata(generated.certificate) };
}

/** Opens an operator-supplied PKCS#12 bundle; throws DocumentError when it cannot sign. */
export function openSigningIdentity(p12: Buffer, passphrase: string): OpenedSigningIdentity {
  const material = readPkcs12(p12, passphrase);
  return { ...material, ...metadata(material.certificate) };
}

/** Validates an operator-supplied PKCS#12 bundle; throws DocumentError when it cannot sign. */
export function loadSigningIdentity(p12: Buffer, passphrase: string): SigningIdentityMetadata {
  return metadata(readPkcs12(p12, passphrase).certificate);
}

function metadata(der: Buffer): SigningIdentityMetadata {
  const { certificatePem, fingerprintSha256, notAfter } = describeCertificate(der);
  return { certificatePem, fingerprintSha256, notAfter };
}

function selfSignedCertificate(options: SigningIdentityOptions, privateKeyPem: string, publicKeyPem: string) {
  const now = options.now ?? new Date();
  const notBefore = new Date(Math.floor((now.getTime() - CLOCK_SKEW_MS) / 1000) * 1000);
  const notAfter = new Date(notBefore);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + (options.validityYears ?? DEFAULT_VALIDITY_YEARS));

  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.publicKeyFromPem(publicKeyPem);
  // A leading 01 keeps the 120 random bits a positive, minimally encoded INTEGER.
  certificate.serialNumber = `01${randomBytes(15).toString('hex')}`;
  certificate.validity.notBefore = notBefore;
  certificate.validity.notAfter = notAfter;
  const name = distinguishedName(options);
  certificate.setSubject(name);
  certificate.setIssuer(name);
  certificate.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  signWithNode(certificate, privateKeyPem);
  return certificate;
}

// forge builds the certificate; Node signs it. forge's own RSA takes ~30 ms (over a second under Jest).
const { getTBSCertificate } = forge.pki as unknown as {
  getTBSCertificate(certificate: forge.pki.Certificate): forge.asn1.Asn1;
};

function signWithNode(certificate: forge.pki.Certificate, privateKeyPem: string): void {
  certificate.signatureOid = certificate.siginfo.algorithmOid = forge.pki.oids.sha256WithRSAEncryption;
  const tbs = Buffer.from(forge.asn1.toDer(getTBSCertificate(certificate)).getBytes(), 'binary');
  certificate.signature = sign('sha256', tbs, privateKeyPem).toString('binary');
}

function distinguishedName({ institutionName, country }: SigningIdentityOptions): forge.pki.CertificateField[] {
  const name = Array.from(institutionName.trim() || 'Institution')
    .slice(0, MAX_NAME_LENGTH)
    .join('');
  // forge reads valueTagClass as a universal type number; its typings mislabel it as a Class.
  const utf8 = forge.asn1.Type.UTF8 as unknown as forge.asn1.Class;
  const fields: forge.pki.CertificateField[] = [
    { name: 'commonName', value: name, valueTagClass: utf8 },
    { name: 'organizationName', value: name, valueTagClass: utf8 },
  ];
  const code = country?.trim().toUpperCase();
  if (code && /^[A-Z]{2}$/.test(code)) fields.push({ name: 'countryName', value: code });
  return fields;
}
