import { jest } from '@jest/globals';
import { FREE_JSON_MAX_BYTES } from '../src/graphql/validators.js';
import { REFUSAL_HOLD_MS } from '../src/rate-limits/http-limits.js';
import { factories } from './support/factories.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';
import { until } from './support/wait.js';

jest.setTimeout(180_000);

/** A tenant may read 1 MiB of stored design configs a minute here; a page of 20 at the limit is 1.3 MB. */
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

/** The bytes charged to the tenant's current window, once the charge of the answer just sent has landed. */
async function chargedTo(identifier: string, atLeast: number): Promise<number> {
  let hits = 0;
  await until(async () => {
    const [row] = await service.orm.em
      .getConnection()
      .execute<{ hits: number }[]>(
        `select hits from rate_limit_buckets where key = 'response-bytes:tenant:' || (select uuid from tenants where identifier = ?)`,
        [identifier],
      );
    hits = Number(row?.hits ?? 0);
    return hits >= atLeast;
  }, `${identifier}'s answer bytes to be charged`);
  return hits;
}

beforeAll(async () => {
  service = await startTestService({ RATE_LIMIT_RESPONSE_BYTES_PER_MINUTE: String(BUDGET) });
  [acme, globex, initech] = await Promise.all([signIn(service, 'acme'), signIn(service, 'globex'), signIn(service, 'initech')]);
  await Promise.all([fullTemplates(acme), fullTemplates(globex), fullTemplates(initech)]);
}, 180_000);
afterAll(() => service.stop());

describe('a tenant’s budget of answer bytes a minute', () => {
  it('charges a REST page its stored sizes, then refuses the tenant in both styles with 429 and Retry-After, other tenants unaffected', async () => {
    const page = await acme.rest('GET', `/certificate-templates?per_page=${PAGE}`);
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(PAGE);
    expect(await chargedTo('acme', PAGE * FREE_JSON_MAX_BYTES)).toBeLessThan(PAGE * FREE_JSON_MAX_BYTES * 1.1);

    const started = performance.now();
    const rest = await acme.rest('GET', `/certificate-templates?per_page=${PAGE}`);
    expect([rest.status, rest.body]).toEqual([429, { message: SPENT }]);
    expect(Number(rest.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
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
    const first = await globex.graphql(LIST_QUERY);
    expect(first.status).toBe(200);
    expect(first.body.data.certificateTemplates.nodes).toHaveLength(PAGE);
    await chargedTo('globex', PAGE * FREE_JSON_MAX_BYTES);
    expect((await globex.graphql(LIST_QUERY)).status).toBe(429);
    expect((await globex.rest('GET', '/institutions')).status).toBe(429);
  });

  it('lets one of many answers sent at once through an unspent window, not all of them', async () => {
    // Each passes the check on arrival; the window is charged as each is admitted to read its configs.
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
