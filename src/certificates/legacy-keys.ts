import type { Orm } from '../db/orm.js';
import type { SigningKeyMaterial } from '../documents/index.js';
import { claimLegacyIdentities, restoreSealedIdentity } from './signing-key.repository.js';

/** What sealing needs of SigningKeys (signing-keys.ts calls this module). */
export interface KeySealer {
  seal(uuid: string, material: SigningKeyMaterial): Promise<{ sealedPrivateKey: Buffer; certificates: Buffer }>;
}

/** Seals every legacy identity in one transaction (several processes starting at once: one does it). */
export async function sealLegacyIdentities(orm: Orm, keys: KeySealer): Promise<number> {
  return orm.em.fork().transactional(async (em) => {
    const rows = await claimLegacyIdentities(em);
    if (rows.length === 0) return 0;
    // PKCS#12 (node-forge) is loaded only when there is a legacy identity to open: most starts have none.
    const { openSigningIdentity } = await import('../documents/signing-identity.js');
    for (const row of rows) {
      const sealed = await keys.seal(row.uuid, openSigningIdentity(row.p12, row.passphrase));
      await restoreSealedIdentity(em, row, sealed);
    }
    return rows.length;
  });
}
