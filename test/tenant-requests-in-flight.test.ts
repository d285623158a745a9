import type net from 'node:net';
import { setTimeout as pause } from 'node:timers/promises';
import { jest } from '@jest/globals';
import { openRawConnection } from './support/raw-http.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

jest.setTimeout(60_000);

let service: TestService;
let acme: ApiClient;
let globex: ApiClient;

beforeAll(async () => {
  service = await startTestService({ REQUESTS_IN_FLIGHT_PER_TENANT: '2' });
  [acme, globex] = await Promise.all([signIn(service, 'acme'), signIn(service, 'globex')]);
});
afterAll(() => service.stop());

/**
 * A GraphQL request that is authenticated and then never finishes sending its body: it holds one of its
 * tenant's places until the socket goes.
 */
async function stalledRequest(api: ApiClient): Promise<net.Socket> {
  const head = [
    'POST /graphql HTTP/1.1',
    'Host: credentials.test',
    `Authorization: Bearer ${api.token}`,
    `X-Tenant: ${api.tenant}`,
    'Content-Type: application/json',
    'Content-Length: 1000',
  ];
  return (await openRawConnection(service.url, `${head.join('\r\n')}\r\n\r\n{"query":`)).socket;
}

/** Resolves with the status, and records when it did. */
function tracked(response: Promise<{ status: number }>): { status: Promise<number>; settled: () => boolean } {
  let done = false;
  const status = response.then((answer) => ((done = true), answer.status));
  return { status, settled: () => done };
}

/** Long enough for a local request to pass authentication, not a timing assertion. */
const SETTLE_MS = 300;

describe('requests of one tenant in progress at once (REQUESTS_IN_FLIGHT_PER_TENANT)', () => {
  it('queues the tenant’s request past its places until one is given back, without delaying another tenant', async () => {
    const holders = [await stalledRequest(acme), await stalledRequest(acme)];
    await pause(SETTLE_MS);
    const queued = tracked(acme.rest('GET', '/students'));
    expect((await globex.rest('GET', '/students')).status).toBe(200);
    await pause(SETTLE_MS);
    expect(queued.settled()).toBe(false);

    holders[0]!.destroy();
    expect(await queued.status).toBe(200);
    holders[1]!.destroy();
  });

  it('gives back the place of a request whose client left while it waited for one', async () => {
    const holders = [await stalledRequest(acme), await stalledRequest(acme)];
    await pause(SETTLE_MS);
    // Waits for a place, then its client leaves before getting one.
    const leaver = await stalledRequest(acme);
    await pause(SETTLE_MS);
    leaver.destroy();
    await pause(SETTLE_MS);
    for (const holder of holders) holder.destroy();
    await pause(SETTLE_MS);

    // Had the leaver's place stayed taken, this holder and it would fill both, and the next request would wait for 10 s, then 429.
    const holder = await stalledRequest(acme);
    await pause(SETTLE_MS);
    expect((await acme.rest('GET', '/students')).status).toBe(200);
    holder.destroy();
  });
});
