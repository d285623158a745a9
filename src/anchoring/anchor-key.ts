import { Wallet } from 'ethers';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type KeyWrapper, open, seal } from '../security/key-envelope.js';
import { anchorKey, firstSealedAnchorKey, registerAnchorKey } from './anchor.repository.js';

/** Sealed to its row, as every sealed key is (SEALED_KEYS, src/certificates/signing-keys.ts): keys:rewrap re-wraps it. */
const sealContext = (address: string) => `anchor_keys/${address}`;

/** The anchoring key in use: its wallet and when its address was registered (the profiles' `created`). */
export interface AnchorIdentity {
  wallet: Wallet;
  address: string;
  createdAt: Date;
}

/**
 * Whole seconds: block times are whole seconds and verifiers want the transaction strictly after the
 * key's `created`, so the registration time is stored truncated.
 */
const wholeSecond = (date: Date) => new Date(Math.floor(date.getTime() / 1000) * 1000);

/**
 * The key anchoring sends from: ANCHOR_PRIVATE_KEY when given (never stored), else the one generated
 * on first use and kept sealed with KEY_ENCRYPTION_KEY. Either way its address is registered once,
 * with the time it was first seen.
 */
export async function resolveAnchorIdentity(em: EntityManager, wrapper: KeyWrapper, privateKey: string | undefined): Promise<AnchorIdentity> {
  if (privateKey) {
    const wallet = new Wallet(privateKey.startsWith('0x') ? privateKey : `0x${privateKey}`);
    const address = wallet.address.toLowerCase();
    await registerAnchorKey(em, address, null, wholeSecond(new Date()));
    const row = await anchorKey(em, address);
    return { wallet, address, createdAt: new Date(row!.created_at) };
  }
  const stored = await firstSealedAnchorKey(em);
  if (stored) {
    const secret = await open(wrapper, Buffer.from(stored.sealed_private_key!), sealContext(stored.address));
    return { wallet: new Wallet(`0x${secret.toString('hex')}`), address: stored.address, createdAt: new Date(stored.created_at) };
  }
  const generated = Wallet.createRandom();
  const address = generated.address.toLowerCase();
  const sealed = await seal(wrapper, Buffer.from(generated.privateKey.slice(2), 'hex'), sealContext(address));
  await registerAnchorKey(em, address, sealed, wholeSecond(new Date()));
  // Two processes starting at once: the first registered key wins, the other reads it back.
  return resolveAnchorIdentity(em, wrapper, undefined);
}
