import { createHash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { requestContext } from '../auth/authenticate.js';
import { DomainError } from '../errors/domain-error.js';
import type { IdempotencyStore, KeyOwner, StoredResponse } from '../idempotency/idempotency.repository.js';

const WRITES = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/** Printable ASCII, 1 to 255 characters: what fits the key column and a log line. */
const KEY_FORMAT = /^[\x20-\x7e]{1,255}$/;

/** Method, path with query string and parsed body: a retry must repeat all three. */
function fingerprint(req: Request): string {
  return createHash('sha256')
    .update(`${req.method}\n${req.originalUrl}\n${JSON.stringify(req.body ?? null)}`)
    .digest('hex');
}

const GRAPHQL_FAILURES = new Set(['INTERNAL_SERVER_ERROR', 'SERVICE_UNAVAILABLE']);

/**
 * Only answers the client should get again are stored. A server error, a 429 or a GraphQL response
 * whose error is ours did no (or no known) work: the key is released and a retry runs again.
 */
function worthRepeating(status: number, body: string): boolean {
  if (status >= 500 || status === 429) return false;
  try {
    const errors = (JSON.parse(body) as { errors?: unknown }).errors;
    return !(Array.isArray(errors) && errors.some((error: { extensions?: { code?: string } }) => GRAPHQL_FAILURES.has(error?.extensions?.code ?? '')));
  } catch {
    return true;
  }
}

function replay(res: Response, stored: StoredResponse): void {
  res.status(stored.status);
  res.setHeader('Idempotent-Replayed', 'true');
  if (stored.contentType) res.setHeader('Content-Type', stored.contentType);
  if (stored.location) res.setHeader('Location', stored.location);
  res.end(stored.body);
}

type End = (...args: unknown[]) => Response;

/**
 * Holds the response until it is stored, so a client that got an answer and retries always finds it:
 * what is written is kept (a large answer comes in slices, rest-compat/json-response.ts) and sent in
 * one `end` once stored.
 */
function storeBeforeSending(res: Response, store: (response: StoredResponse | null) => Promise<void>): void {
  const end = res.end.bind(res) as End;
  const chunks: Buffer[] = [];
  const collect = (chunk: unknown, encoding: unknown) => {
    if (chunk == null || typeof chunk === 'function') return;
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), (typeof encoding === 'string' ? encoding : 'utf8') as BufferEncoding));
  };
  res.write = ((chunk: unknown, encoding?: unknown) => {
    collect(chunk, encoding);
    return true;
  }) as Response['write'];
  res.end = ((...args: unknown[]) => {
    collect(args[0], args[1]);
    const whole = Buffer.concat(chunks);
    const body = whole.toString('utf8');
    const response: StoredResponse = {
      status: res.statusCode,
      body,
      contentType: (res.getHeader('content-type') as string | undefined) ?? null,
      location: (res.getHeader('location') as string | undefined) ?? null,
    };
    void store(worthRepeating(response.status, body) ? response : null).finally(() => end(whole));
    return res;
  }) as Response['end'];
}

/**
 * `Idempotency-Key` on writes, for REST and GraphQL alike (mounted after authentication and the JSON
 * body, before the route or Apollo): the first answer is stored per tenant + client + key for 24 hours
 * and repeated, marked `Idempotent-Replayed: true`, to a retry of the same request without doing the
 * work again. The same key on a different request is a 422; while the first is still being served, 409.
 * Multipart uploads refuse a key: they are already idempotent (uploading the same content returns the
 * stored record), and their bytes are streamed to storage, not held to be fingerprinted.
 */
export function idempotency(store: IdempotencyStore): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const key = req.get('idempotency-key');
    if (key === undefined || !WRITES.has(req.method)) return next();
    try {
      if (!KEY_FORMAT.test(key)) {
        throw new DomainError('BAD_REQUEST', 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.', undefined, 'idempotency_key_invalid');
      }
      if (req.is('multipart/form-data')) {
        throw new DomainError(
          'BAD_REQUEST',
          'Idempotency-Key is not accepted on multipart uploads; uploading the same content again returns the stored file.',
          undefined,
          'idempotency_key_unsupported',
        );
      }
      const { tenant, principal } = requestContext(res);
      const owner: KeyOwner = { tenantUuid: tenant.uuid, clientId: principal.clientId, key };
      const print = fingerprint(req);
      const claim = await store.claim(owner, print);
      if (claim.outcome === 'replay') return replay(res, claim.response);
      if (claim.outcome === 'mismatch') {
        throw new DomainError(
          'BAD_USER_INPUT',
          'This Idempotency-Key was already used for a different request (method, path or body); use a new key.',
          undefined,
          'idempotency_key_reused',
        );
      }
      if (claim.outcome === 'in_use') {
        res.setHeader('Retry-After', '1');
        throw new DomainError(
          'CONFLICT',
          'A request with this Idempotency-Key is still being processed; retry after it has finished.',
          undefined,
          'idempotency_key_in_use',
        );
      }
      let settled = false;
      const settle = async (response: StoredResponse | null) => {
        if (settled) return;
        settled = true;
        await (response ? store.complete(owner, print, response) : store.release(owner, print)).catch((error: unknown) =>
          req.log?.error({ err: error }, 'idempotency key not stored'),
        );
      };
      storeBeforeSending(res, settle);
      res.on('close', () => void settle(null));
      next();
    } catch (error) {
      next(error);
    }
  };
}
