import type { Orm } from '../db/orm.js';
import type { SigningKeyMaterial } from '../documents/index.js';

/** What sealing needs of SigningKeys (signing-keys.ts calls this module). */
export interface KeySealer {
  seal(uuid: string, material: SigningKeyMaterial): Promise<{ sealedPrivateKey: Buffer; certificates: Buffer }>;
}

// Migration20261122230000_keys_at_rest moved identities stored before encryption at rest (PKCS#12 with
// its passphrase beside it) into this table: SQL cannot seal them, since the key-encryption key never
// reaches the database. The service seals them at startup and puts them back under the same uuid.
const CLAIM = `delete from signing_identities_unsealed returning uuid, tenant_uuid, institution_uuid, created_at,
  updated_at, deleted_at, p12, passphrase, fingerprint_sha256, not_after, origin`;
const RESTORE = `insert into signing_identities (uuid, tenant_uuid, institution_uuid, created_at, updated_at, deleted_at,
  sealed_private_key, certificates, fingerprint_sha256, not_after, origin) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

interface LegacyRow {
  uuid: string;
  tenant_uuid: string;
  institution_uuid: string;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  p12: Buffer;
  passphrase: string;
  fingerprint_sha256: string;
  not_after: Date;
  origin: string;
}

/** Seals every legacy identity in one transaction (several processes starting at once: one does it). */
export async function sealLegacyIdentities(orm: Orm, keys: KeySealer): Promise<number> {
  return orm.em.fork().transactional(async (em) => {
    const rows = await em.execute<LegacyRow[]>(CLAIM);
    if (rows.length === 0) return 0;
    // PKCS#12 (node-forge) is loaded only when there is a legacy identity to open: most starts have none.
    const { openSigningIdentity } = await import('../documents/signing-identity.js');
    for (const row of rows) {
      const { sealedPrivateKey, certificates } = await keys.seal(row.uuid, openSigningIdentity(row.p12, row.passphrase));
      await em.execute(RESTORE, [
        row.uuid,
        row.tenant_uuid,
        row.institution_uuid,
        row.created_at,
        row.updated_at,
        row.deleted_at,
        sealedPrivateKey,
        certificates,
        row.fingerprint_sha256,
        row.not_after,
        row.origin,
      ]);
    }
    return rows.length;
  });
}
