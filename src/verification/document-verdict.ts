import type { SignatureInspection, SignatureReport } from '../documents/index.js';

/** The one answer POST /api/v1/verify gives about an uploaded PDF; docs/api.md explains each. */
export type Verdict = 'authentic' | 'modified_after_signing' | 'not_issued_here' | 'unsigned' | 'invalid';

export interface VerdictEvidence {
  inspection: SignatureInspection;
  /** Signing certificates this service holds (current or retired): fingerprint → institution uuid. */
  ourKeys: ReadonlyMap<string, string>;
  /**
   * The certificate the file names, when it exists: its institution, whether the file is byte for byte
   * one of its issued documents, and whether it was withdrawn (deleted, or its institution deleted).
   */
  claimed?: { institutionUuid: string; matchesIssuedDocument: boolean; withdrawn?: boolean };
}

/** A signature whose value verifies with a key this service holds. */
export function signedByUs(signature: SignatureReport, ourKeys: ReadonlyMap<string, string>): boolean {
  return signature.signatureValid && ourKeys.has(signature.certificateFingerprintSha256 ?? '');
}

/**
 * Decides the verdict. `authentic` needs everything at once: an intact signature by the named
 * certificate's institution, covering the whole file, and the file byte for byte as issued. A
 * valid signature of ours with anything less means the bytes changed after signing — unless the
 * certificate it names was withdrawn: then, changed or not, it is no longer issued here. A signature
 * that names one of our certificates but does not verify is a forgery or damage: invalid.
 */
export function decideVerdict({ inspection, ourKeys, claimed }: VerdictEvidence): Verdict {
  if (inspection.refused) return 'invalid';
  const { signatures } = inspection;
  if (signatures.length === 0) return 'unsigned';
  const ours = signatures.filter((signature) => signedByUs(signature, ourKeys));
  if (claimed?.withdrawn && ours.length > 0) return 'not_issued_here';
  const issuers = ours.filter((signature) => ourKeys.get(signature.certificateFingerprintSha256!) === claimed?.institutionUuid);
  if (claimed?.matchesIssuedDocument && issuers.some((signature) => signature.intact && signature.coversWholeFile)) return 'authentic';
  if (ours.length > 0) return 'modified_after_signing';
  const posesAsOurs = signatures.some((signature) => ourKeys.has(signature.certificateFingerprintSha256 ?? ''));
  if (posesAsOurs || signatures.every((signature) => !signature.readable)) return 'invalid';
  return 'not_issued_here';
}
