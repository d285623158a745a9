/**
 * Runs the Blockcerts reference verifier (@blockcerts/cert-verifier-js, its Node build) on credentials,
 * in its own process: it rewrites every http:// URL to https:// and fetches the issuer profile,
 * revocation list and chain itself, so this process routes those requests back to the local ports
 * (`routes`: host → local origin) by wrapping fetch. One process serves a whole test file (starting
 * Node and the verifier again for every credential cost more than most verifications): requests
 * arrive over the IPC channel one at a time, `{id, credential, rpcUrl, routes}` →
 * `{id, result: {status, message, steps: {code: status}}}`. Every verification builds its own
 * Certificate; the verifier keeps no fetched document between them (no cache: each fetches again).
 */
import { createRequire } from 'node:module';
import { URL } from 'node:url';

const require = createRequire(import.meta.url);
const { Certificate } = require('@blockcerts/cert-verifier-js/dist/verifier-node/index.js');

// The verifier logs every step on the console; results go over the IPC channel alone.
console.log = console.warn = console.error = () => undefined;

/** The current request's routing (requests are served one after the other). */
let rpc;
let routes = {};
const realFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = new URL(typeof input === 'string' ? input : input.url);
  const local = url.host === rpc.host ? rpc.origin : routes[url.host];
  if (!local) return Promise.reject(new Error(`refused: ${url.href} is not a local route`));
  return realFetch(`${local}${url.pathname}${url.search}`, init);
};

async function verify({ credential, rpcUrl, routes: routed }) {
  rpc = new URL(rpcUrl);
  routes = routed;
  const steps = {};
  try {
    const certificate = new Certificate(credential, {
      explorerAPIs: [{ serviceURL: rpcUrl, serviceUrl: rpcUrl, priority: 0, apiType: 'rpc', chainType: 'eth' }],
    });
    await certificate.init();
    const result = await certificate.verify(({ code, status }) => {
      steps[code] = status;
    });
    return { status: result.status, message: typeof result.message === 'string' ? result.message : (result.message?.description ?? null), steps };
  } catch (error) {
    return { status: 'error', message: String(error?.message ?? error), steps };
  }
}

let queue = Promise.resolve();
process.on('message', ({ id, ...request }) => {
  queue = queue.then(async () => process.send({ id, result: await verify(request) }));
});
// The test file's process went away (or closed the channel): nothing more will come.
process.on('disconnect', () => process.exit(0));
