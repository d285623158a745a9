/**
 * Runs the Blockcerts reference verifier (@blockcerts/cert-verifier-js, its Node build) on one
 * credential, in its own process: it rewrites every http:// URL to https:// and fetches the issuer
 * profile, revocation list and chain itself, so this process routes those requests back to the local
 * ports (`routes`: host → local origin) by wrapping fetch. Input on stdin, result on stdout, as JSON:
 * `{credential, rpcUrl, routes}` → `{status, message, steps: {code: status}}`.
 */
import { Buffer } from 'node:buffer';
import { createRequire } from 'node:module';
import { URL } from 'node:url';

const require = createRequire(import.meta.url);
const { Certificate } = require('@blockcerts/cert-verifier-js/dist/verifier-node/index.js');

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const { credential, rpcUrl, routes } = JSON.parse(Buffer.concat(chunks).toString('utf8'));

const rpc = new URL(rpcUrl);
const realFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = new URL(typeof input === 'string' ? input : input.url);
  const local = url.host === rpc.host ? rpc.origin : routes[url.host];
  if (!local) return Promise.reject(new Error(`refused: ${url.href} is not a local route`));
  return realFetch(`${local}${url.pathname}${url.search}`, init);
};
// The verifier logs every step on the console; the result goes to stdout alone.
const log = console.log;
console.log = console.warn = console.error = () => undefined;

const steps = {};
try {
  const certificate = new Certificate(credential, {
    explorerAPIs: [{ serviceURL: rpcUrl, serviceUrl: rpcUrl, priority: 0, apiType: 'rpc', chainType: 'eth' }],
  });
  await certificate.init();
  const result = await certificate.verify(({ code, status }) => {
    steps[code] = status;
  });
  log(JSON.stringify({ status: result.status, message: typeof result.message === 'string' ? result.message : (result.message?.description ?? null), steps }));
} catch (error) {
  log(JSON.stringify({ status: 'error', message: String(error?.message ?? error), steps }));
}
