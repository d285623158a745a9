import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { PublicContext } from '../context/request-context.js';
import { uuidv7 } from '../db/uuid.js';
import type { OpenedSigningIdentity, PreparedSigner } from '../documents/index.js';
import type { Institution } from '../institutions/institution.entity.js';
import { SigningIdentity } from './signing-identity.entity.js';
import type { SigningKeys } from './signing-keys.js';

/** What signing needs of a context: the (tenant-scoped) EntityManager and the key ring. */
export type SigningContext = Pick<PublicContext, 'em' | 'signingKeys'>;

/** Certificates and PKCS#12 (node-forge, the X.509 schemas): loaded when an identity is first made or installed. */
const signingIdentities = (): Promise<typeof import('../documents/signing-identity.js')> => import('../documents/signing-identity.js');

/** A new identity row for `opened`, its private key sealed to the row's uuid. */
async function sealedIdentity(keys: SigningKeys, institution: Institution, opened: OpenedSigningIdentity, origin: 'generated' | 'installed') {
  const uuid = uuidv7();
  const sealed = await keys.seal(uuid, opened);
  return { uuid, institution: institution.uuid, ...sealed, fingerprintSha256: opened.fingerprintSha256, notAfter: opened.notAfter, origin };
}

/**
 * The signer of an institution: its current identity, generated (self-signed) on first use. Called
 * before the issuance transaction opens: the first use writes the identity in its own short
 * transaction, the only connection this request holds, so a burst of first issuances never needs two
 * connections each. Two concurrent first uses settle on one identity (a unique index decides).
 */
export async function institutionSigner({ em, signingKeys }: SigningContext, institution: Institution): Promise<PreparedSigner> {
  if (em.isInTransaction()) throw new Error('the institution signer is resolved before the issuing transaction opens');
  const current = await em.findOne(SigningIdentity, { institution });
  if (current) return signingKeys.signerFor(current);
  const generated = (await signingIdentities()).generateSigningIdentity({ institutionName: institution.name, country: institution.country });
  const row = await sealedIdentity(signingKeys, institution, generated, 'generated');
  try {
    await em.fork().transactional(async (tx) => {
      tx.create(SigningIdentity, row);
    });
    return signingKeys.signerFor(row);
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
  }
  return signingKeys.signerFor(await em.findOneOrFail(SigningIdentity, { institution }, { refresh: true }));
}

/**
 * Installs an operator's PKCS#12 as the institution's identity (the previous one is retired). Only
 * the key is kept, sealed; the bundle and its passphrase are not stored.
 */
export async function installSigningIdentity(
  { em, signingKeys }: SigningContext,
  institution: Institution,
  p12: Buffer,
  passphrase: string,
): Promise<{ fingerprintSha256: string; notAfter: Date }> {
  const opened = (await signingIdentities()).openSigningIdentity(p12, passphrase);
  const row = await sealedIdentity(signingKeys, institution, opened, 'installed');
  await em.transactional(async (tx) => {
    await tx.nativeUpdate(SigningIdentity, { institution }, { deletedAt: new Date() });
    tx.create(SigningIdentity, row);
  });
  return { fingerprintSha256: opened.fingerprintSha256, notAfter: opened.notAfter };
}
