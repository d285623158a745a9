import { createHmac, randomBytes } from 'node:crypto';

/** Standard Webhooks secrets: `whsec_` + base64 of the key bytes. */
const SECRET_PREFIX = 'whsec_';

export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

/**
 * The `webhook-signature` header value: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` keyed
 * with the secret's bytes (Standard Webhooks, symmetric scheme). `timestamp` is in seconds.
 */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}
