import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { uuidv7 } from '../db/uuid.js';
import { generateSigningIdentity, openSigningIdentity, type OpenedSigningIdentity, type PreparedSigner } from '../documents/index.js';
import type { Institution } from '../institutions/institution.entity.js';
import { SigningIdentity } from './signing-identity.entity.js';
import { signingKeys } from './signing-keys.js';

/** A new identity row for `opened`, its private key sealed to the row's uuid. */
async function sealedIdentity(em: EntityManager, institution: Institution, opened: OpenedSigningIdentity, origin: 'generated' | 'installed') {
  const uuid = uuidv7();
  const sealed = await signingKeys(em).seal(uuid, opened);
  return { uuid, institution: institution.uuid, ...sealed, fingerprintSha256: opened.fingerprintSha256, notAfter: opened.notAfter, origin };
}

/**
 * The signer of an institution: its current identity, generated (self-signed) on first use. The
 * first use runs in its own short transaction on `em`'s tenant, so two concurrent first issuances
 * settle on one identity (a unique index decides) without rolling back either issuance.
 */
export async function institutionSigner(em: EntityManager, institution: Institution): Promise<PreparedSigner> {
  const current = await em.findOne(SigningIdentity, { institution });
  if (current) return signingKeys(em).signerFor(current);
  const generated = generateSigningIdentity({ institutionName: institution.name, country: institution.country });
  const row = await sealedIdentity(em, institution, generated, 'generated');
  try {
    await em.fork().transactional(async (tx) => {
      tx.create(SigningIdentity, row);
    });
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
  }
  return signingKeys(em).signerFor(await em.findOneOrFail(SigningIdentity, { institution }, { refresh: true }));
}

/**
 * Installs an operator's PKCS#12 as the institution's identity (the previous one is retired). Only
 * the key is kept, sealed; the bundle and its passphrase are not stored.
 */
export async function installSigningIdentity(
  em: EntityManager,
  institution: Institution,
  p12: Buffer,
  passphrase: string,
): Promise<{ fingerprintSha256: string; notAfter: Date }> {
  const opened = openSigningIdentity(p12, passphrase);
  const row = await sealedIdentity(em, institution, opened, 'installed');
  await em.transactional(async (tx) => {
    await tx.nativeUpdate(SigningIdentity, { institution }, { deletedAt: new Date() });
    tx.create(SigningIdentity, row);
  });
  return { fingerprintSha256: opened.fingerprintSha256, notAfter: opened.notAfter };
}
