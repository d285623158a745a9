import type { TriggerDef } from '@mikro-orm/core';
import { listenToChannel, type NotificationListener } from '../db/notification-listener.js';
import type { Logger } from '../logger.js';
import type { PrincipalCache } from './principal-cache.js';

/**
 * The channel the triggers below NOTIFY with a client id whenever one of its tokens or the client
 * itself stops being usable (revoked, or deleted before it expired). An empty payload means "forget
 * everything". PostgreSQL folds identical notifications of one transaction into one, so rotating a
 * client with many tokens sends one message.
 */
export const PRINCIPAL_REVOKED_CHANNEL = 'principal_revoked';

const notifyClient = (clientId: string) => `perform pg_notify('${PRINCIPAL_REVOKED_CHANNEL}', coalesce(${clientId}, '')); return null;`;
const clientOfToken = `(select client.client_id from oauth_clients client where client.uuid = old.client_uuid)`;

/** On `oauth_access_tokens`: a token revoked, or deleted while it could still be used (a purge of expired tokens sends nothing). */
export const TOKEN_REVOKED_TRIGGERS: TriggerDef[] = [
  {
    name: 'signal_token_revoked',
    timing: 'after',
    events: ['update'],
    forEach: 'row',
    when: 'old.revoked_at is null and new.revoked_at is not null',
    body: notifyClient(clientOfToken),
  },
  { name: 'signal_token_deleted', timing: 'after', events: ['delete'], forEach: 'row', when: 'old.expires_at > now()', body: notifyClient(clientOfToken) },
];

/** On `oauth_clients`: a client revoked (a rotation) or deleted. */
export const CLIENT_REVOKED_TRIGGERS: TriggerDef[] = [
  {
    name: 'signal_client_revoked',
    timing: 'after',
    events: ['update'],
    forEach: 'row',
    when: 'old.revoked_at is null and new.revoked_at is not null',
    body: notifyClient('old.client_id'),
  },
  { name: 'signal_client_deleted', timing: 'after', events: ['delete'], forEach: 'row', body: notifyClient('old.client_id') },
];

/** Keeps `cache` serving only while this process hears revocations, and evicts what they name. */
export function listenForRevocations(databaseUrl: string, cache: PrincipalCache, logger: Logger): NotificationListener {
  return listenToChannel(
    databaseUrl,
    PRINCIPAL_REVOKED_CHANNEL,
    {
      onNotification: (clientId) => cache.forget(clientId === '' ? undefined : clientId),
      onListening: () => cache.setListening(true),
      onLost: () => cache.setListening(false),
    },
    logger,
  );
}
