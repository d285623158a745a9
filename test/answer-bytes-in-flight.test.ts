import { jest } from '@jest/globals';
import http from 'node:http';
import { ResponseBudget } from '../src/context/response-budget.js';
import { FREE_JSON_MAX_BYTES } from '../src/graphql/validators.js';
import { InFlightLimit } from '../src/rate-limits/in-flight-limit.js';
import { factories } from './support/factories.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

jest.setTimeout(180_000);

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('work in flight per key', () => {
  it('lets work through while it fits, then in order of arrival as earlier work is released', async () => {
    const limit = new InFlightLimit(10, 60_000);
    const order: string[] = [];
    const take = (name: string, amount: number) => limit.acquire('acme', amount).then((ok) => ok && order.push(name));
    await take('a', 6);
    const waiting = [take('b', 6), take('c', 1)];
    await settled();
    // c would fit beside a, but b came first: nothing overtakes a waiting piece of work.
    expect(order).toEqual(['a']);
    expect(await limit.acquire('globex', 10)).toBe(true);
    limit.release('acme', 6);
    await Promise.all(waiting);
    expect(order).toEqual(['a', 'b', 'c']);
    expect(limit.heldBy('acme')).toBe(7);
  });

  it('always lets one piece through when nothing is in flight, however large', async () => {
    const limit = new InFlightLimit(10, 60_000);
    expect(await limit.acquire('acme', 1_000)).toBe(true);
    limit.release('acme', 1_000);
    expect(limit.heldBy('acme')).toBe(0);
  });

  it('answers false after the longest wait, holding nothing for it', async () => {
    const limit = new InFlightLimit(1, 50);
    await limit.acquire('acme', 1);
    expect(await limit.acquire('acme', 1)).toBe(false);
    limit.release('acme', 1);
    expect(limit.heldBy('acme')).toBe(0);
  });
});

describe('an answer’s large fields in flight', () => {
  it('holds what it charged until it has gone, and gives back what it was admitted after its client left', async () => {
    const gate = new InFlightLimit(100, 60_000);
    const first = new ResponseBudget(1_000, { gate, tenant: 'acme' });
    first.charge(80);
    await first.admit();
    expect(gate.heldBy('acme')).toBe(80);

    const second = new ResponseBudget(1_000, { gate, tenant: 'acme' });
    second.charge(80);
    let admitted = false;
    const admitting = second.admit().then(() => (admitted = true));
    await settled();
    expect(admitted).toBe(false);
    second.finish(); // its client left while it waited
    first.finish();
    await admitting;
    expect(gate.heldBy('acme')).toBe(0);
  });

  it('charges the tenant’s byte rate once admitted, and still gives the bytes back when it is overdrawn', async () => {
    const gate = new InFlightLimit(100, 60_000);
    const budget = new ResponseBudget(1_000, { gate, tenant: 'acme' });
    const charged: number[] = [];
    budget.chargeTenantWith(async (bytes) => {
      charged.push(bytes);
      throw new Error('rate overdrawn');
    });
    budget.charge(50);
    await expect(budget.admit()).rejects.toThrow('rate overdrawn');
    expect(charged).toEqual([50]);
    budget.finish();
    expect(gate.heldBy('acme')).toBe(0);
  });
});

describe('a tenant’s large answers, one at a time (RESPONSE_BYTES_IN_FLIGHT_PER_TENANT=1)', () => {
  const PAGE = 20;
  const LIST = `/certificate-templates?per_page=${PAGE}`;
  let service: TestService;
  let acme: ApiClient;
  let globex: ApiClient;

  async function fullTemplates(api: ApiClient): Promise<void> {
    const make = factories(api);
    const institution = await make.institution();
    const design = { notes: 'x'.repeat(FREE_JSON_MAX_BYTES - '{"notes":""}'.length) };
    for (let n = 0; n < PAGE; n++) await make.template({ institution_uuid: institution.uuid, design_config: design });
  }

  /** Starts the page and leaves after its first bytes, without reading the rest. */
  function abandonedPage(api: ApiClient): Promise<void> {
    return new Promise((resolve, reject) => {
      const request = http.get(`${api.baseUrl}/api/v1${LIST}`, { headers: api.headers() }, (response) => {
        response.once('data', () => {
          request.destroy();
          resolve();
        });
      });
      request.on('error', (error) => (request.destroyed ? resolve() : reject(error)));
    });
  }

  beforeAll(async () => {
    service = await startTestService({ RESPONSE_BYTES_IN_FLIGHT_PER_TENANT: '1', RATE_LIMIT_RESPONSE_BYTES_PER_MINUTE: '0' });
    [acme, globex] = await Promise.all([signIn(service, 'acme'), signIn(service, 'globex')]);
    await Promise.all([fullTemplates(acme), fullTemplates(globex)]);
  }, 180_000);
  afterAll(() => service.stop());

  it('answers every one of a burst, in both styles, whole', async () => {
    const query = `query { certificateTemplates(first: ${PAGE}) { nodes { uuid designConfig } } }`;
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, () => acme.rest('GET', LIST)),
      ...Array.from({ length: 4 }, () => acme.graphql(query)),
      globex.rest('GET', LIST),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual(Array(9).fill(200));
    for (const answer of answers.slice(0, 4))
      expect(answer.body.data.map((row: { design_config: { notes: string } }) => row.design_config.notes.length)).toEqual(
        Array(PAGE).fill(FREE_JSON_MAX_BYTES - 12),
      );
    for (const answer of answers.slice(4, 8)) expect(answer.body.data.certificateTemplates.nodes).toHaveLength(PAGE);
  });

  it('gives the turn back when a client leaves in the middle of its answer', async () => {
    await Promise.all([abandonedPage(acme), abandonedPage(acme), abandonedPage(acme)]);
    // Were a turn kept by a departed client, this page would wait 10 s and answer 503.
    const started = Date.now();
    const page = await acme.rest('GET', LIST);
    expect(page.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(9_000);
  });
});

describe('the tenant’s byte rate, checked again after waiting', () => {
  let service: TestService;
  let acme: ApiClient;
  let globex: ApiClient;

  async function fullTemplates(api: ApiClient): Promise<void> {
    const make = factories(api);
    const institution = await make.institution();
    const design = { notes: 'x'.repeat(FREE_JSON_MAX_BYTES - '{"notes":""}'.length) };
    for (let n = 0; n < 20; n++) await make.template({ institution_uuid: institution.uuid, design_config: design });
  }

  beforeAll(async () => {
    // One page of 20 configs at the limit (1.3 MB) overdraws a tenant's byte rate; answers run one at a time.
    service = await startTestService({ RESPONSE_BYTES_IN_FLIGHT_PER_TENANT: '1', RATE_LIMIT_RESPONSE_BYTES_PER_MINUTE: String(1024 * 1024) });
    [acme, globex] = await Promise.all([signIn(service, 'acme'), signIn(service, 'globex')]);
    await Promise.all([fullTemplates(acme), fullTemplates(globex)]);
  }, 180_000);
  afterAll(() => service.stop());

  it('refuses the answers that waited behind the one that overdrew the rate', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => acme.rest('GET', '/certificate-templates?per_page=20')));
    const statuses = answers.map((answer) => answer.status);
    // All five passed the check on arrival (nothing was charged yet); each is charged when its turn comes,
    // and the first overdraws the rate, so at most the one admitted with it may still pass, the rest may not.
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(2);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(3);
  });

  it('refuses such a GraphQL answer with one error, not one per row', async () => {
    const query = 'query { certificateTemplates(first: 20) { nodes { uuid designConfig } } }';
    const answers = await Promise.all(Array.from({ length: 5 }, () => globex.graphql(query)));
    const refused = answers.filter((answer) => answer.body.errors);
    expect(refused.length).toBeGreaterThanOrEqual(3);
    for (const answer of refused)
      expect(answer.body.errors.map((error: { extensions: { code: string } }) => error.extensions.code)).toEqual(['TOO_MANY_REQUESTS']);
  });
});
