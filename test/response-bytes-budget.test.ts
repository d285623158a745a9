import { jest } from '@jest/globals';
import { FREE_JSON_MAX_BYTES } from '../src/graphql/validators.js';
import { REFUSAL_HOLD_MS } from '../src/rate-limits/http-limits.js';
import { factories } from './support/factories.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';
import { until } from './support/wait.js';

jest.setTimeout(180_000);

/** A tenant may read 1 MiB of stored design configs a minute here (bursts of 64 KiB); a page of 20 at the limit is 1.3 MB. */
const BUDGET = 1024 * 1024;
const PAGE = 20;
const SPENT = 'This tenant has read too many bytes of answers this minute; try again later.';
const LIST_QUERY = `query { certificateTemplates(first: ${PAGE}) { nodes { uuid designConfig } } }`;

let service: TestService;
let acme: ApiClient;
let globex: ApiClient;
let initech: ApiClient;

const designOf = (bytes: number) => ({ notes: 'x'.repeat(bytes - '{"notes":""}'.length) });

async function fullTemplates(api: ApiClient): Promise<void> {
  const make = factories(api);
  const institution = await make.institution();
  for (let n = 0; n < PAGE; n++) await make.template({ institution_uuid: institution.uuid, design_config: designOf(FREE_JSON_MAX_BYTES) });
}

/**
 * The bytes charged to the tenant's bucket by the answer sent at `sentAt`, once its charge has landed:
 * the bucket's debt, plus what has drained from it since (the rate, 1 MiB a minute here).
 */
async function chargedTo(identifier: string, sentAt: number, atLeast: number): Promise<{ charged: number; debt: number }> {
  const msPerByte = 60_000 / BUDGET;
  let reading = { charged: 0, debt: 0 };
  await until(async () => {
    const [row] = await service.orm.em.getConnection().execute<{ debt_ms: number }[]>(
      `select extract(epoch from reset_at - now()) * 1000 as debt_ms from rate_limit_buckets
         where key = 'response-bytes:tenant:' || (select uuid from tenants where identifier = ?)`,
      [identifier],
    );
    const debtMs = Math.max(0, Number(row?.debt_ms ?? 0));
    reading = { charged: (debtMs + (Date.now() - sentAt)) / msPerByte, debt: debtMs / msPerByte };
    return reading.charged >= atLeast;
  }, `${identifier}'s answer bytes to be charged`);
  return reading;
}

beforeAll(async () => {
  service = await startTestService({ RATE_LIMIT_RESPONSE_BYTES_PER_MINUTE: String(BUDGET) });
  [acme, globex, initech] = await Promise.all([signIn(service, 'acme'), signIn(service, 'globex'), signIn(service, 'initech')]);
  await Promise.all([fullTemplates(acme), fullTemplates(globex), fullTemplates(initech)]);
}, 180_000);
afterAll(() => service.stop());

describe('a tenant’s rate of answer bytes', () => {
  it('charges a REST page its stored sizes, then refuses the tenant in both styles with 429 and Retry-After, other tenants unaffected', async () => {
    const sentAt = Date.now();
    const page = await acme.rest('GET', `/certificate-templates?per_page=${PAGE}`);
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(PAGE);
    expect((await chargedTo('acme', sentAt, PAGE * FREE_JSON_MAX_BYTES)).debt).toBeLessThan(PAGE * FREE_JSON_MAX_BYTES * 1.1);

    const started = performance.now();
    const rest = await acme.rest('GET', `/certificate-templates?per_page=${PAGE}`);
    expect([rest.status, rest.body]).toEqual([429, { message: SPENT }]);
    // Metered: the page left a debt of about 75 s of the rate, room again once it is back within the burst
    // (3.75 s); a window that refills all at once could not say more than 60.
    expect(Number(rest.headers.get('retry-after'))).toBeGreaterThan(60);
    // Held like every refusal the process already knows: resending at once gains nothing (a timer never fires early).
    expect(performance.now() - started).toBeGreaterThanOrEqual(REFUSAL_HOLD_MS - 1);
    const graphql = await acme.graphql(LIST_QUERY);
    expect(graphql.status).toBe(429);
    expect(JSON.stringify(graphql.body)).toContain(SPENT);

    // Small answers charge nothing, and another tenant's budget is its own.
    expect((await globex.rest('GET', '/institutions')).status).toBe(200);
    expect((await globex.graphql('query { certificateTemplates(first: 1) { nodes { uuid } } }')).status).toBe(200);
  });

  it('charges GraphQL answers the same way', async () => {
    const sentAt = Date.now();
    const first = await globex.graphql(LIST_QUERY);
    expect(first.status).toBe(200);
    expect(first.body.data.certificateTemplates.nodes).toHaveLength(PAGE);
    await chargedTo('globex', sentAt, PAGE * FREE_JSON_MAX_BYTES);
    expect((await globex.graphql(LIST_QUERY)).status).toBe(429);
    expect((await globex.rest('GET', '/institutions')).status).toBe(429);
  });

  it('lets one of many answers sent at once through an untouched bucket, not all of them', async () => {
    // Each passes the check on arrival; the bucket is charged as each is admitted to read its configs.
    const answers = await Promise.all([
      ...Array.from({ length: 3 }, () => initech.rest('GET', `/certificate-templates?per_page=${PAGE}`)),
      ...Array.from({ length: 3 }, () => initech.graphql(LIST_QUERY)),
    ]);
    // Refused before execution: 429 in both styles; refused while reading: a GraphQL error.
    const refused = (answer: (typeof answers)[number]) => answer.status === 429 || answer.body.errors?.[0]?.extensions?.code === 'TOO_MANY_REQUESTS';
    expect(answers.filter((answer) => answer.status === 200 && !answer.body.errors)).toHaveLength(1);
    expect(answers.filter(refused)).toHaveLength(5);
  });
});
