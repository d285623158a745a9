import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import { resolvedProblem, urlProblem } from './webhook-target.js';

/** How one POST to an endpoint is bounded. */
export interface WebhookHttpLimits {
  /** The whole exchange, connect to last byte read. */
  timeoutMs: number;
  /** Bytes of the answer read (kept for the log); the rest is never read. */
  maxResponseBytes: number;
  /** Whether loopback, private, link-local and other non-public addresses may be reached. */
  allowPrivate: boolean;
}

export interface WebhookResponse {
  status: number;
  body: string;
}

export class WebhookRefusedError extends Error {}

/**
 * Resolves like the default lookup, then refuses non-public addresses: the check applies to the
 * address actually connected to, so a name that resolves differently later (DNS rebinding) gains nothing.
 */
const guardedLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as dns.LookupAddress[];
    const refused = resolvedProblem(hostname, list);
    if (refused) return callback(new WebhookRefusedError(refused), '', 0);
    if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    return callback(null, list[0]!.address, list[0]!.family);
  });
};

/** POSTs `body` once, bounded by `limits`; resolves with any HTTP answer, rejects when none came. Redirects are not followed. */
export function postWebhook(url: string, headers: Record<string, string>, body: string, limits: WebhookHttpLimits): Promise<WebhookResponse> {
  const target = new URL(url);
  const refused = urlProblem(target, limits.allowPrivate);
  if (refused) return Promise.reject(new WebhookRefusedError(refused));
  const transport = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(target, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'credential-service-webhooks/1' },
      ...(limits.allowPrivate ? {} : { lookup: guardedLookup }),
      agent: false,
    });
    const timer = setTimeout(() => request.destroy(new Error(`no complete answer within ${limits.timeoutMs} ms`)), limits.timeoutMs);
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.once('response', (response) => {
      const chunks: Buffer[] = [];
      let received = 0;
      const finish = () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).subarray(0, limits.maxResponseBytes).toString('utf8') });
        response.destroy();
      };
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        received += chunk.length;
        if (received >= limits.maxResponseBytes) finish();
      });
      response.once('end', finish);
      response.on('error', finish);
    });
    request.end(body);
  });
}
