import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier,
  AttributeTypeAndValue,
  AttributeValue,
  BasicConstraints,
  Certificate,
  Extension,
  Extensions,
  id_ce_basicConstraints,
  id_ce_keyUsage,
  id_ce_subjectKeyIdentifier,
  KeyUsage,
  KeyUsageFlags,
  Name,
  RelativeDistinguishedName,
  SubjectKeyIdentifier,
  SubjectPublicKeyInfo,
  TBSCertificate,
  Validity,
  Version,
} from '@peculiar/asn1-x509';
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
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const certificate = selfSignedCertificate(options, privateKey, publicKey);
  return { privateKey, certificate, chain: [], ...metadata(certificate) };
}

/** Generates an institution's RSA-2048 key and self-signed certificate, bundled as PKCS#12. */
export function createSigningIdentity(options: SigningIdentityOptions): GeneratedSigningBundle {
  const generated = generateSigningIdentity(options);
  const passphrase = randomBytes(32).toString('base64url');
  const p12 = writePkcs12(generated.privateKey, generated.certificate, passphrase);
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

const SHA256_WITH_RSA = '1.2.840.113549.1.1.11';
const Attribute = { commonName: '2.5.4.3', organizationName: '2.5.4.10', countryName: '2.5.4.6' } as const;

function selfSignedCertificate(options: SigningIdentityOptions, privateKey: KeyObject, publicKey: KeyObject): Buffer {
  const now = options.now ?? new Date();
  const notBefore = new Date(Math.floor((now.getTime() - CLOCK_SKEW_MS) / 1000) * 1000);
  const notAfter = new Date(notBefore);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + (options.validityYears ?? DEFAULT_VALIDITY_YEARS));
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const subjectPublicKeyInfo = AsnConvert.parse(spki, SubjectPublicKeyInfo);
  const name = distinguishedName(options);
  const signatureAlgorithm = new AlgorithmIdentifier({ algorithm: SHA256_WITH_RSA, parameters: null });
  const extension = (extnID: string, value: object, critical = false) =>
    new Extension({ extnID, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });
  const tbsCertificate = new TBSCertificate({
    version: Version.v3,
    // A leading 01 keeps the 120 random bits a positive, minimally encoded INTEGER.
    serialNumber: new Uint8Array([1, ...randomBytes(15)]).buffer,
    signature: signatureAlgorithm,
    issuer: name,
    subject: name,
    validity: new Validity({ notBefore, notAfter }),
    subjectPublicKeyInfo,
    extensions: new Extensions([
      extension(id_ce_basicConstraints, new BasicConstraints({ cA: false }), true),
      extension(id_ce_keyUsage, new KeyUsage(KeyUsageFlags.digitalSignature | KeyUsageFlags.nonRepudiation), true),
      // RFC 5280 §4.2.1.2 method (1): SHA-1 of the subjectPublicKey bits.
      extension(id_ce_subjectKeyIdentifier, new SubjectKeyIdentifier(createHash('sha1').update(Buffer.from(subjectPublicKeyInfo.subjectPublicKey)).digest())),
    ]),
  });
  const signatureValue = sign('sha256', Buffer.from(AsnConvert.serialize(tbsCertificate)), privateKey);
  return Buffer.from(AsnConvert.serialize(new Certificate({ tbsCertificate, signatureAlgorithm, signatureValue: new Uint8Array(signatureValue).buffer })));
}

function distinguishedName({ institutionName, country }: SigningIdentityOptions): Name {
  const name = Array.from(institutionName.trim() || 'Institution')
    .slice(0, MAX_NAME_LENGTH)
    .join('');
  const rdn = (type: string, value: AttributeValue) => new RelativeDistinguishedName([new AttributeTypeAndValue({ type, value })]);
  const rdns = [rdn(Attribute.commonName, new AttributeValue({ utf8String: name })), rdn(Attribute.organizationName, new AttributeValue({ utf8String: name }))];
  const code = country?.trim().toUpperCase();
  if (code && /^[A-Z]{2}$/.test(code)) rdns.push(rdn(Attribute.countryName, new AttributeValue({ printableString: code })));
  return new Name(rdns);
}
