/** The objects of a property that may hold one or several (`proof`, `credentialStatus`). */
const entries = (value: unknown): Record<string, unknown>[] =>
  (Array.isArray(value) ? value : [value]).filter((entry): entry is Record<string, unknown> => !!entry && typeof entry === 'object');

const strings = (values: unknown[]): string[] => values.filter((value): value is string => typeof value === 'string');

/**
 * The documents verifying `document` loads beyond JSON-LD contexts: its proofs' verification methods,
 * its status lists, and (for a verification method) its controller. Applied again to what they name,
 * this finds everything the reference libraries ask a document loader for.
 */
export function documentReferences(document: Record<string, unknown>): string[] {
  return [
    ...strings(entries(document.proof).map((proof) => proof.verificationMethod)),
    ...strings(entries(document.credentialStatus).map((entry) => entry.statusListCredential)),
    ...strings([document.controller]),
  ];
}
