import type { Orm } from '../db/orm.js';
import { type KeyWrapper, open, seal } from '../security/key-envelope.js';

/** A row's uuid is authenticated with its secret: a sealed secret copied onto another endpoint does not open. */
const contextOf = (endpointUuid: string) => `webhook_endpoints/${endpointUuid}`;

/** Seals an endpoint's signing secret under the key-encryption key, as signing keys are sealed. */
export async function sealWebhookSecret(wrapper: KeyWrapper, endpointUuid: string, secret: string): Promise<Buffer> {
  return seal(wrapper, Buffer.from(secret, 'utf8'), contextOf(endpointUuid));
}

export async function openWebhookSecret(wrapper: KeyWrapper, endpointUuid: string, sealed: Buffer): Promise<string> {
  return (await open(wrapper, sealed, contextOf(endpointUuid))).toString('utf8');
}

// Migration20261125213339_webhook_fairness moved the secrets stored in plain text into this table:
// SQL cannot seal them, since the key-encryption key never reaches the database.
const CLAIM = 'delete from webhook_secrets_unsealed returning endpoint_uuid, signing_secret';
const RESTORE = 'update webhook_endpoints set sealed_signing_secret = ? where uuid = ?';

/**
 * Startup: seals every secret stored before secrets were sealed, in one transaction (of several
 * processes starting at once, one does it; the others find the table empty). Returns how many.
 */
export async function sealLegacyWebhookSecrets(orm: Orm, wrapper: KeyWrapper): Promise<number> {
  return orm.em.fork().transactional(async (em) => {
    const rows = await em.execute<{ endpoint_uuid: string; signing_secret: string }[]>(CLAIM);
    for (const row of rows) await em.execute(RESTORE, [await sealWebhookSecret(wrapper, row.endpoint_uuid, row.signing_secret), row.endpoint_uuid]);
    return rows.length;
  });
}
