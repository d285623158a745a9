import type { Orm } from '../db/orm.js';
import { type KeyWrapper, open, seal } from '../security/key-envelope.js';
import { storeSealedSecret, takeUnsealedSecrets } from './webhook.repository.js';

/** A row's uuid is authenticated with its secret: a sealed secret copied onto another endpoint does not open. */
const contextOf = (endpointUuid: string) => `webhook_endpoints/${endpointUuid}`;

/** Seals an endpoint's signing secret under the key-encryption key, as signing keys are sealed. */
export async function sealWebhookSecret(wrapper: KeyWrapper, endpointUuid: string, secret: string): Promise<Buffer> {
  return seal(wrapper, Buffer.from(secret, 'utf8'), contextOf(endpointUuid));
}

export async function openWebhookSecret(wrapper: KeyWrapper, endpointUuid: string, sealed: Buffer): Promise<string> {
  return (await open(wrapper, sealed, contextOf(endpointUuid))).toString('utf8');
}

/**
 * Startup: seals every secret stored before secrets were sealed, in one transaction (of several
 * processes starting at once, one does it; the others find the table empty). Returns how many.
 */
export async function sealLegacyWebhookSecrets(orm: Orm, wrapper: KeyWrapper): Promise<number> {
  return orm.em.fork().transactional(async (em) => {
    const rows = await takeUnsealedSecrets(em);
    for (const row of rows) await storeSealedSecret(em, row.endpoint_uuid, await sealWebhookSecret(wrapper, row.endpoint_uuid, row.signing_secret));
    return rows.length;
  });
}
