import type { Orm } from '../db/orm.js';
import type { PreparedSigner, SigningKeyMaterial } from '../documents/index.js';
import type { Logger } from '../logger.js';
import { sealLegacyIdentities } from './legacy-keys.js';
import { lockSealedKeys, replaceSealedKey, type SealedKeyColumn, sealedKeysIn } from './signing-key.repository.js';
import { KeyEnvelopeError, open, rewrap, seal, sealedKeyId, type KeyWrapper } from '../security/key-envelope.js';

const MAX_CACHED_SIGNERS = 500;

/** The sealed private key and public certificates of one signing_identities row. */
export interface StoredKey {
  uuid: string;
  sealedPrivateKey: Buffer;
  certificates: Buffer;
}

/** A row's uuid is authenticated with its key: a sealed key copied onto another row does not open. */
const contextOf = (uuid: string) => `signing_identities/${uuid}`;

/**
 * Seals and opens the private keys of signing identities with one key-encryption key, and keeps the
 * keys it opened (per identity uuid: an identity's key never changes in place). One per running
 * service, so the cache is only reachable through the key-encryption key that filled it.
 */
export class SigningKeys {
  private readonly signers = new Map<string, PreparedSigner>();

  constructor(readonly wrapper: KeyWrapper) {}

  async seal(uuid: string, material: SigningKeyMaterial): Promise<Omit<StoredKey, 'uuid'>> {
    const { exportKeyMaterial } = await import('../documents/key-material.js');
    const exported = exportKeyMaterial(material);
    return { sealedPrivateKey: await seal(this.wrapper, exported.privateKey, contextOf(uuid)), certificates: exported.certificates };
  }

  async signerFor(stored: StoredKey): Promise<PreparedSigner> {
    let signer = this.signers.get(stored.uuid);
    if (!signer) {
      const privateKey = await open(this.wrapper, stored.sealedPrivateKey, contextOf(stored.uuid));
      // The CMS and ASN.1 code is loaded with the first key opened, not at start (most starts sign nothing).
      const [{ importKeyMaterial }, { PreparedSigner }] = await Promise.all([
        import('../documents/key-material.js'),
        import('../documents/prepared-signer.js'),
      ]);
      signer = new PreparedSigner(importKeyMaterial({ privateKey, certificates: stored.certificates }));
      if (this.signers.size >= MAX_CACHED_SIGNERS) this.signers.delete(this.signers.keys().next().value!);
      this.signers.set(stored.uuid, signer);
    }
    return signer;
  }
}

/**
 * Every column of sealed keys, each sealed to `<table>/<row id>`: PDF signing identities, Open Badges
 * 3.0 issuer keys, webhook signing secrets (by uuid), the anchoring key (by address).
 */
const SEALED_KEYS: readonly SealedKeyColumn[] = [
  { table: 'signing_identities', column: 'sealed_private_key', id: 'uuid' },
  { table: 'ob3_issuer_keys', column: 'sealed_secret_key', id: 'uuid' },
  { table: 'webhook_endpoints', column: 'sealed_signing_secret', id: 'uuid' },
  { table: 'anchor_keys', column: 'sealed_private_key', id: 'address' },
];

/** Key ids of the sealed keys not wrapped under `wrapper`, with how many rows each. */
export async function foreignKeyIds(orm: Orm, wrapper: KeyWrapper): Promise<Map<string, number>> {
  const foreign = new Map<string, number>();
  for (const sealedKeys of SEALED_KEYS) {
    const rows = await sealedKeysIn(orm.em, sealedKeys);
    for (const { sealed } of rows) {
      const id = sealedKeyId(sealed);
      if (id !== wrapper.id) foreign.set(id, (foreign.get(id) ?? 0) + 1);
    }
  }
  return foreign;
}

/**
 * Re-wraps every stored key (deleted identities too: they may sign again after a restore) from `from`
 * to `to` in one transaction: all or nothing. Keys already under `to` are left as they are, so an
 * interrupted or repeated rotation is finished by running it again.
 */
export async function rewrapSigningKeys(orm: Orm, from: KeyWrapper, to: KeyWrapper): Promise<{ rewrapped: number; unchanged: number }> {
  return orm.em.fork().transactional(async (em) => {
    let rewrapped = 0;
    let unchanged = 0;
    for (const sealedKeys of SEALED_KEYS) {
      const rows = await lockSealedKeys(em, sealedKeys);
      for (const row of rows) {
        if (sealedKeyId(row.sealed) === to.id) {
          unchanged++;
          continue;
        }
        const sealed = await rewrap(from, to, row.sealed, `${sealedKeys.table}/${row.id}`);
        await replaceSealedKey(em, sealedKeys, row.id, sealed);
        rewrapped++;
      }
    }
    return { rewrapped, unchanged };
  });
}

/**
 * Startup: opens the key ring under the key-encryption key, seals the keys of identities stored before
 * keys were encrypted (legacy-keys.ts), and refuses to start when stored keys are sealed under another
 * key-encryption key, rather than failing at the next issuance.
 */
export async function prepareSigningKeys(orm: Orm, wrapper: KeyWrapper, logger: Logger, { verify = true } = {}): Promise<SigningKeys> {
  const keys = new SigningKeys(wrapper);
  const sealed = await sealLegacyIdentities(orm, keys);
  if (sealed > 0) logger.info({ count: sealed, keyId: wrapper.id }, 'signing keys stored before encryption at rest are now sealed');
  if (!verify) return keys;
  const mismatched = [...(await foreignKeyIds(orm, wrapper)).entries()];
  if (mismatched.length > 0) {
    const list = mismatched.map(([id, count]) => `${count} under "${id}"`).join(', ');
    throw new KeyEnvelopeError(
      'WRONG_KEY',
      `KEY_ENCRYPTION_KEY ("${wrapper.id}") does not open the stored signing keys (${list}): configure the key they were sealed with, or re-wrap them with \`npm run cli -- keys:rewrap\``,
    );
  }
  return keys;
}
