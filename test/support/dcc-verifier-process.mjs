/**
 * Runs the Digital Credentials Consortium's verifier (@digitalcredentials/verifier-core) on one
 * credential in its own process, the way a verifier on the web would: it resolves did:web over https
 * and fetches the status list itself, trusting only the system's CAs plus NODE_EXTRA_CA_CERTS (the
 * test front's CA). The one thing not fetched is 1EdTech's JSON schema, which it would download from
 * purl.imsglobal.org: that URL is answered from the copy bundled in test/fixtures/1edtech.
 * Input on stdin `[{credential, registries}, …]`, the verifier's results on stdout, as JSON (one process
 * for several credentials: loading the verifier takes seconds on a busy machine).
 */
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { URL } from 'node:url';

const { Response } = globalThis;

const SCHEMA_URL = 'https://purl.imsglobal.org/spec/ob/v3p0/schema/json/ob_v3p0_achievementcredential_schema.json';
const schema = readFileSync(new URL('../fixtures/1edtech/ob_v3p0_achievementcredential_schema.json', import.meta.url), 'utf8');
const realFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  if (url === SCHEMA_URL) return Promise.resolve(new Response(schema, { headers: { 'content-type': 'application/json' } }));
  return realFetch(input, init);
};
const log = console.log;
console.log = console.warn = console.error = () => undefined;

const { verifyCredential } = await import('@digitalcredentials/verifier-core');
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const jobs = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const results = [];
for (const { credential, registries } of jobs) results.push(await verifyCredential({ credential, knownDIDRegistries: registries }));
// Error objects (stack traces of fatal errors) do not survive JSON; their name and message do.
log(
  JSON.stringify(results, (key, value) => (value instanceof Error ? { name: value.name, message: value.message } : key === 'stackTrace' ? undefined : value)),
);
