import { AsnArray, AsnIntegerArrayBufferConverter, AsnProp, AsnPropTypes, AsnType, AsnTypeTypes, OctetString } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier, GeneralNames } from '@peculiar/asn1-x509';

/**
 * ESS signing-certificate-v2 (RFC 5035), the signed attribute PAdES baseline requires: it binds the
 * signature to one certificate by its hash, so a verifier cannot be offered another one with the same
 * key. No ASN.1 package declares it; these classes follow the RFC's module.
 */
export const id_aa_signingCertificateV2 = '1.2.840.113549.1.9.16.2.47';

export class IssuerSerial {
  @AsnProp({ type: GeneralNames })
  issuer = new GeneralNames();

  @AsnProp({ type: AsnPropTypes.Integer, converter: AsnIntegerArrayBufferConverter })
  serialNumber = new ArrayBuffer(0);

  constructor(params: Partial<IssuerSerial> = {}) {
    Object.assign(this, params);
  }
}

/** We leave hashAlgorithm out (its DEFAULT is SHA-256, the only hash we write); other signers may not. */
export class EssCertIdV2 {
  @AsnProp({ type: AlgorithmIdentifier, optional: true })
  hashAlgorithm?: AlgorithmIdentifier;

  @AsnProp({ type: OctetString })
  certHash = new OctetString();

  @AsnProp({ type: IssuerSerial, optional: true })
  issuerSerial?: IssuerSerial;

  constructor(params: Partial<EssCertIdV2> = {}) {
    Object.assign(this, params);
  }
}

@AsnType({ type: AsnTypeTypes.Sequence, itemType: EssCertIdV2 })
export class EssCertIdV2List extends AsnArray<EssCertIdV2> {}

export class SigningCertificateV2 {
  @AsnProp({ type: EssCertIdV2List })
  certs = new EssCertIdV2List();

  constructor(params: Partial<SigningCertificateV2> = {}) {
    Object.assign(this, params);
  }
}
