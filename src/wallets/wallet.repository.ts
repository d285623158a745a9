import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import { TX_CODE_MAX_FAILURES } from './credential-offers.js';

/** The OpenID4VCI exchange's statements (wallet-exchange.ts) and the sweep of what it leaves. */

export interface OfferRow {
  uuid: string;
  certificate_uuid: string;
  tenant_uuid: string;
  tx_code_hash: string | null;
  tx_code_failures: number;
  expired: boolean;
  redeemed: boolean;
  revoked: boolean;
}

const OFFER_BY_CODE = `select uuid, certificate_uuid, tenant_uuid, tx_code_hash, tx_code_failures, expires_at <= now() as expired,
        redeemed_at is not null as redeemed, revoked_at is not null as revoked from credential_offers where code_hash = ?`;

export async function offerByCode(em: EntityManager, codeHash: string): Promise<OfferRow | undefined> {
  const [offer] = await em.execute<OfferRow[]>(OFFER_BY_CODE, [codeHash]);
  return offer;
}

// One statement decides a redemption: of two wallets presenting the same code at once, exactly one gets a row back.
const REDEEM = `update credential_offers set redeemed_at = now()
  where code_hash = ? and redeemed_at is null and revoked_at is null and expires_at > now()
    and (tx_code_hash is null or (tx_code_failures < ${TX_CODE_MAX_FAILURES} and tx_code_hash = ?))
  returning uuid, certificate_uuid`;

/** The offer this code (and PIN hash, '' without one) redeemed now, if it did. */
export async function redeemOffer(em: EntityManager, codeHash: string, txCodeHash: string): Promise<{ uuid: string; certificate_uuid: string } | undefined> {
  const [redeemed] = await em.execute<{ uuid: string; certificate_uuid: string }[]>(REDEEM, [codeHash, txCodeHash]);
  return redeemed;
}

const COUNT_WRONG_TX_CODE = 'update credential_offers set tx_code_failures = tx_code_failures + 1 where uuid = ?';

export async function countWrongTxCode(em: EntityManager, offerUuid: string): Promise<void> {
  await em.execute(COUNT_WRONG_TX_CODE, [offerUuid]);
}

const INSERT_ACCESS_TOKEN = 'insert into wallet_access_tokens (token_hash, offer_uuid, expires_at) values (?, ?, ?)';

export async function insertAccessToken(em: EntityManager, tokenHash: string, offerUuid: string, expiresAt: Date): Promise<void> {
  await em.execute(INSERT_ACCESS_TOKEN, [tokenHash, offerUuid, expiresAt]);
}

const OFFER_BY_ACCESS_TOKEN = `select o.uuid, o.certificate_uuid, o.tenant_uuid from wallet_access_tokens t join credential_offers o on o.uuid = t.offer_uuid
      where t.token_hash = ? and t.expires_at > now() and o.revoked_at is null`;

/** The offer of a live access token, unless the offer was revoked. */
export async function offerOfAccessToken(
  em: EntityManager,
  tokenHash: string,
): Promise<{ uuid: string; certificate_uuid: string; tenant_uuid: string } | undefined> {
  const [row] = await em.execute<{ uuid: string; certificate_uuid: string; tenant_uuid: string }[]>(OFFER_BY_ACCESS_TOKEN, [tokenHash]);
  return row;
}

const INSERT_NONCE = 'insert into wallet_nonces (nonce_hash, expires_at) values (?, ?)';

export async function insertNonce(em: EntityManager, nonceHash: string, expiresAt: Date): Promise<void> {
  await em.execute(INSERT_NONCE, [nonceHash, expiresAt]);
}

const CONSUME_NONCE = 'delete from wallet_nonces where nonce_hash = ? and expires_at > now() returning nonce_hash';

/** Uses up a live nonce: true once, for the first proof that carries it. */
export async function consumeNonce(em: EntityManager, nonceHash: string): Promise<boolean> {
  const [used] = await em.execute<{ nonce_hash: string }[]>(CONSUME_NONCE, [nonceHash]);
  return used !== undefined;
}

// Across all tenants, idempotent: any number of processes may run them at once. Nonces and access
// tokens are secrets with no history: gone once expired. A dead offer (expired, redeemed or revoked)
// stays `graceSeconds` for the offers list; its claims (credential_claims) are kept for good.
// (least() skips nulls: an offer dies at the first of its expiry, redemption and revocation.)
const PURGES = [
  `delete from wallet_nonces where expires_at < now()`,
  `delete from wallet_access_tokens where expires_at < now()`,
  `delete from credential_offers
    where least(expires_at, redeemed_at, revoked_at) < now() - make_interval(secs => ?)`,
];

/** Deletes expired wallet nonces and access tokens, and offers dead for longer than `graceSeconds`; returns how many rows. */
export async function purgeWalletLeftovers(orm: Orm, graceSeconds: number): Promise<number> {
  const connection = orm.em.getConnection();
  let deleted = 0;
  for (const sql of PURGES) {
    const result = (await connection.execute(sql, sql.includes('?') ? [graceSeconds] : [], 'run')) as { affectedRows?: number };
    deleted += result.affectedRows ?? 0;
  }
  return deleted;
}
