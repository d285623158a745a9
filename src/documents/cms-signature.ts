import { createHash, randomBytes, sign, type KeyObject } from 'node:crypto';
import {
  Attribute,
  CertificateChoices,
  CertificateSet,
  CMSVersion,
  DigestAlgorithmIdentifier,
  DigestAlgorithmIdentifiers,
  EncapsulatedContentInfo,
  id_data,
  id_signedData,
  IssuerAndSerialNumber,
  SignatureAlgorithmIdentifier,
  SignedData,
  SignerIdentifier,
  SignerInfo,
  SignerInfos,
} from '@peculiar/asn1-cms';
import { AsnArray, AsnConvert, AsnProp, AsnPropTypes, AsnSerializer, AsnType, AsnTypeTypes, OctetString } from '@peculiar/asn1-schema';
import { Certificate, GeneralName, GeneralNames, Time } from '@peculiar/asn1-x509';
import { EssCertIdV2, EssCertIdV2List, id_aa_signingCertificateV2, IssuerSerial, SigningCertificateV2 } from './ess-signing-certificate.js';

export const CmsOid = {
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
} as const;

/** The key and certificates a CMS signer needs; DER buffers as stored. */
export interface CmsSignerMaterial {
  privateKey: KeyObject;
  certificate: Buffer;
  chain: Buffer[];
}

/**
 * The parts of a SignedData that do not depend on the content, built once per signing identity:
 * parsing certificates and hashing them for signing-certificate-v2 would otherwise run on every
 * signature.
 */
export class CmsSignerTemplate {
  private readonly certificates: CertificateSet;
  private readonly signerIdentifier: SignerIdentifier;
  private readonly signingCertificate: Attribute;
  private readonly signatureAlgorithm: SignatureAlgorithmIdentifier;
  private skeleton?: Skeleton;

  constructor(private readonly material: CmsSignerMaterial) {
    const signer = AsnConvert.parse(material.certificate, Certificate);
    const { issuer, serialNumber } = signer.tbsCertificate;
    const certificates = new CertificateSet(
      [material.certificate, ...material.chain].map((der) => new CertificateChoices({ certificate: AsnConvert.parse(der, Certificate) })),
    );
    // Converted to ASN.1 once: converting certificate objects is most of the cost of a signature.
    const encoded = AsnSerializer.toASN(certificates);
    this.certificates = { toASN: () => encoded, fromASN: () => certificates } as unknown as CertificateSet;
    this.signerIdentifier = new SignerIdentifier({ issuerAndSerialNumber: new IssuerAndSerialNumber({ issuer, serialNumber }) });
    const essCertId = new EssCertIdV2({
      certHash: new OctetString(createHash('sha256').update(material.certificate).digest()),
      issuerSerial: new IssuerSerial({ issuer: new GeneralNames([new GeneralName({ directoryName: issuer })]), serialNumber }),
    });
    const value = AsnConvert.serialize(new SigningCertificateV2({ certs: new EssCertIdV2List([essCertId]) }));
    this.signingCertificate = new Attribute({ attrType: id_aa_signingCertificateV2, attrValues: [value] });
    this.signatureAlgorithm =
      material.privateKey.asymmetricKeyType === 'ec'
        ? new SignatureAlgorithmIdentifier({ algorithm: CmsOid.ecdsaWithSha256 })
        : new SignatureAlgorithmIdentifier({ algorithm: CmsOid.sha256WithRsa, parameters: null });
  }

  /**
   * A CAdES detached signature (ETSI EN 319 122-1 baseline B, as PAdES wants it) of `content`:
   * signed attributes content-type, message-digest and signing-certificate-v2. The signing time
   * belongs in the PDF's signature dictionary (/M), so there is no signing-time attribute unless
   * `signingTime` is given (CMS for other purposes).
   */
  sign(content: Buffer | Buffer[], signingTime?: Date): Buffer {
    const parts = Array.isArray(content) ? content : [content];
    const digest = parts.reduce((hash, part) => hash.update(part), createHash('sha256')).digest();
    if (signingTime) return this.encode(digest, (attributes) => this.signatureOf(attributes), signingTime).cms;
    this.skeleton ??= this.buildSkeleton();
    const { attributes, cms, digestAt, signatureAt } = this.skeleton;
    const signedAttributes = patched(attributes.der, attributes.digestAt, digest);
    const signature = this.signatureOf(signedAttributes);
    // ECDSA signatures vary in length by a byte or two: those are encoded in full.
    if (signature.length !== cms.signatureLength) return this.encode(digest, () => signature).cms;
    return patched(patched(cms.der, digestAt, digest), signatureAt, signature);
  }

  private signatureOf(signedAttributes: Buffer): Buffer {
    return sign('sha256', signedAttributes, this.material.privateKey);
  }

  /**
   * The library's encoding of a signature with marker values in the two places that change: the
   * digest and the signature value. Both are fixed-length OCTET STRING contents, so a signature is
   * that encoding with the markers overwritten: encoding anew costs ten times the RSA operation.
   */
  private buildSkeleton(): Skeleton {
    const digestMarker = randomBytes(32);
    const signatureLength = this.material.privateKey.asymmetricKeyType === 'rsa' ? (this.material.privateKey.asymmetricKeyDetails?.modulusLength ?? 0) / 8 : -1;
    const signatureMarker = randomBytes(Math.max(signatureLength, 1));
    const { attributes, cms } = this.encode(digestMarker, () => signatureMarker);
    return {
      attributes: { der: attributes, digestAt: attributes.indexOf(digestMarker) },
      cms: { der: cms, signatureLength },
      digestAt: cms.indexOf(digestMarker),
      signatureAt: cms.indexOf(signatureMarker),
    };
  }

  private encode(digest: Buffer, signatureOf: (signedAttributes: Buffer) => Buffer, signingTime?: Date) {
    const signedAttrs = sortedAttributes([
      new Attribute({ attrType: CmsOid.contentType, attrValues: [AsnConvert.serialize(new ObjectIdentifierValue(id_data))] }),
      new Attribute({ attrType: CmsOid.messageDigest, attrValues: [AsnConvert.serialize(new OctetString(digest))] }),
      this.signingCertificate,
      ...(signingTime ? [new Attribute({ attrType: CmsOid.signingTime, attrValues: [AsnConvert.serialize(new Time(signingTime))] })] : []),
    ]);
    // The signature covers the attributes as an explicit SET OF (RFC 5652 §5.4), not as [0].
    const attributes = Buffer.from(AsnConvert.serialize(new SignedAttributesSet(signedAttrs)));
    const signerInfo = new SignerInfo({
      version: CMSVersion.v1,
      sid: this.signerIdentifier,
      digestAlgorithm: new DigestAlgorithmIdentifier({ algorithm: CmsOid.sha256 }),
      signedAttrs,
      signatureAlgorithm: this.signatureAlgorithm,
      signature: new OctetString(signatureOf(attributes)),
    });
    const signedData = new SignedData({
      version: CMSVersion.v1,
      digestAlgorithms: new DigestAlgorithmIdentifiers([new DigestAlgorithmIdentifier({ algorithm: CmsOid.sha256 })]),
      encapContentInfo: new EncapsulatedContentInfo({ eContentType: id_data }),
      certificates: this.certificates,
      signerInfos: new SignerInfos([signerInfo]),
    });
    return { attributes, cms: Buffer.from(AsnConvert.serialize(new SignedContentInfo({ content: signedData }))) };
  }
}

interface Skeleton {
  attributes: { der: Buffer; digestAt: number };
  cms: { der: Buffer; signatureLength: number };
  digestAt: number;
  signatureAt: number;
}

function patched(der: Buffer, at: number, value: Buffer): Buffer {
  const copy = Buffer.from(der);
  value.copy(copy, at);
  return copy;
}

/** ContentInfo with its content typed (asn1-cms types it as ANY, which is re-parsed to be written). */
class SignedContentInfo {
  @AsnProp({ type: AsnPropTypes.ObjectIdentifier })
  contentType = id_signedData;

  @AsnProp({ type: SignedData, context: 0 })
  content = new SignedData();

  constructor(params: Partial<SignedContentInfo> = {}) {
    Object.assign(this, params);
  }
}

/** A content-type attribute's value: a bare OBJECT IDENTIFIER. */
@AsnType({ type: AsnTypeTypes.Choice })
class ObjectIdentifierValue {
  @AsnProp({ type: AsnPropTypes.ObjectIdentifier })
  value: string;

  constructor(value = '') {
    this.value = value;
  }
}

@AsnType({ type: AsnTypeTypes.Set, itemType: Attribute })
export class SignedAttributesSet extends AsnArray<Attribute> {}

/** DER orders a SET OF by the encodings of its elements. */
function sortedAttributes(attributes: Attribute[]): Attribute[] {
  return attributes
    .map((attribute) => ({ attribute, der: Buffer.from(AsnConvert.serialize(attribute)) }))
    .sort((a, b) => Buffer.compare(a.der, b.der))
    .map(({ attribute }) => attribute);
}

/** One-off CMS signature with a key that is not prepared (tests, tools). */
export function buildDetachedSignature(input: CmsSignerMaterial & { content: Buffer; signingTime?: Date }): Buffer {
  return new CmsSignerTemplate(input).sign(input.content, input.signingTime);
}
