/**
 * What CLR 2.0 (1EdTech, §B "ClrCredential", "ClrSubject", "Association") requires of a ClrCredential,
 * as checks: 1EdTech's published JSON Schema of it was not reachable from this workspace (docs/wallets.md),
 * so the required properties and the association vocabulary are checked here instead; the
 * AchievementCredentials inside are validated against 1EdTech's bundled OB 3.0 schema by the tests.
 */
const ASSOCIATION_TYPES = ['exactMatchOf', 'isChildOf', 'isParentOf', 'isPartOf', 'isPeerOf', 'isRelatedTo', 'precedes', 'replacedBy'];
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const isUri = (value: unknown) => typeof value === 'string' && /^[a-z][a-z0-9+.-]*:\S+$/i.test(value);
const types = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

export function clrStructureErrors(clr: any): string[] {
  const errors: string[] = [];
  const require = (ok: boolean, message: string) => ok || errors.push(message);
  require(Array.isArray(clr['@context']) && clr['@context'][0] === 'https://www.w3.org/ns/credentials/v2', '@context must start with the VC 2.0 context');
  require(types(clr['@context']).includes('https://purl.imsglobal.org/spec/clr/v2p0/context-2.0.1.json'), '@context must name the CLR 2.0 context');
  require(isUri(clr.id), 'id must be a URI');
  require(types(clr.type).includes('VerifiableCredential') &&
    types(clr.type).includes('ClrCredential'), 'type must include VerifiableCredential and ClrCredential');
  require(isUri(clr.issuer?.id) && types(clr.issuer?.type).includes('Profile'), 'issuer must be a Profile with an id');
  require(typeof clr.name === 'string' && clr.name.length > 0, 'name is required');
  require(DATE_TIME.test(clr.validFrom ?? ''), 'validFrom must be a dateTime');
  require(clr.validUntil === undefined || DATE_TIME.test(clr.validUntil), 'validUntil must be a dateTime');
  const subject = clr.credentialSubject ?? {};
  require(types(subject.type).includes('ClrSubject'), 'credentialSubject.type must include ClrSubject');
  require(Array.isArray(subject.verifiableCredential) && subject.verifiableCredential.length >= 1, 'credentialSubject.verifiableCredential needs one or more');
  for (const achievement of subject.achievement ?? []) {
    require(isUri(achievement.id) &&
      types(achievement.type).includes('Achievement') &&
      !!achievement.name &&
      !!achievement.criteria, 'an achievement needs id, type, name, criteria');
  }
  const achievementIds = new Set((subject.achievement ?? []).map((achievement: any) => achievement.id));
  for (const association of subject.association ?? []) {
    require(association.type === 'Association', 'an association has type Association');
    require(ASSOCIATION_TYPES.includes(association.associationType), `associationType ${association.associationType} is not in the vocabulary`);
    require(achievementIds.has(association.sourceId) && achievementIds.has(association.targetId), 'an association links achievements of the subject');
  }
  for (const schema of clr.credentialSchema ?? []) require(isUri(schema.id) && typeof schema.type === 'string', 'a credentialSchema needs id and type');
  require(Array.isArray(clr.proof) && clr.proof.length >= 1, 'proof must be a list of one or more');
  return errors;
}
