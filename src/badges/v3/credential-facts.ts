/** The issuer id of a credential: `issuer` as a string or as a Profile object's `id`. */
export function credentialIssuerId(credential: Record<string, unknown>): string | null {
  const issuer = credential.issuer;
  if (typeof issuer === 'string') return issuer;
  const id = issuer && typeof issuer === 'object' ? (issuer as { id?: unknown }).id : null;
  return typeof id === 'string' ? id : null;
}
