import type { AnchorState } from '../anchoring/anchor-verification.js';

/** What the public may know about an issued certificate; the HTML page and the JSON say the same. */
export interface VerificationFacts {
  uuid: string;
  /** valid: issued and not expired; revoked; expired. */
  state: 'valid' | 'revoked' | 'expired';
  recipientName: string;
  institutionName: string;
  courseName: string;
  issuedAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  revocationReason: string | null;
  verificationUrl: string;
  documents: { type: 'certificate' | 'transcript'; name: string; url: string }[];
  /** Where it is anchored on a blockchain; 'pending' until its batch is confirmed; null with anchoring off (docs/anchoring.md). */
  anchor: AnchorState;
}
