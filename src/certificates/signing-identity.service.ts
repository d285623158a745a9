import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { createSigningIdentity, loadSigningIdentity, prepareSigner, type PreparedSigner } from '../documents/index.js';
import type { Institution } from '../institutions/institution.entity.js';
import { SigningIdentity } from './signing-identity.entity.js';

// Parsing a PKCS#12 costs more than a signature; identities never change in place (a new one gets a
// new uuid), so a parsed signer can be kept per identity uuid for the life of the process.
const signers = new Map<string, PreparedSigner>();
const MAX_CACHED_SIGNERS = 500;

function signerFor(identity: SigningIdentity): PreparedSigner {
  let signer = signers.get(identity.uuid);
  if (!signer) {
    if (signers.size >= MAX_CACHED_SIGNERS) signers.delete(signers.keys().next().value!);
    signer = prepareSigner({ p12: identity.p12, passphrase: identity.passphrase });
    signers.set(identity.uuid, signer);
  }
  return signer;
}

/**
 * The signer of an institution: its current identity, generated (self-signed) on first use. The
 * first use runs in its own short transaction on `em`'s tenant, so two concurrent first issuances
 * settle on one identity (a unique index decides) without rolling back either issuance.
 */
export async function institutionSigner(em: EntityManager, institution: Institution): Promise<PreparedSigner> {
  const current = await em.findOne(SigningIdentity, { institution });
  if (current) return signerFor(current);
  const generated = createSigningIdentity({ institutionName: institution.name, country: institution.country });
  try {
    await em.fork().transactional(async (tx) => {
      tx.create(SigningIdentity, {
        institution: institution.uuid,
        p12: generated.p12,
        passphrase: generated.passphrase,
        fingerprintSha256: generated.fingerprintSha256,
        notAfter: generated.notAfter,
        origin: 'generated',
      });
    });
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
  }
  return signerFor(await em.findOneOrFail(SigningIdentity, { institution }, { refresh: true }));
}

/** Installs an operator's PKCS#12 as the institution's identity (the previous one is retired). */
export async function installSigningIdentity(em: EntityManager, institution: Institution, p12: Buffer, passphrase: string): Promise<{ fingerprintSha256: string; notAfter: Date }> {
  const metadata = loadSigningIdentity(p12, passphrase);
  await em.transactional(async (tx) => {
    await tx.nativeUpdate(SigningIdentity, { institution }, { deletedAt: new Date() });
    tx.create(SigningIdentity, { institution: institution.uuid, p12, passphrase, fingerprintSha256: metadata.fingerprintSha256, notAfter: metadata.notAfter, origin: 'installed' });
  });
  return { fingerprintSha256: metadata.fingerprintSha256, notAfter: metadata.notAfter };
}
