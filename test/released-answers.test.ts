import { HeaderMap } from '@apollo/server';
import type { RequestContext } from '../src/context/request-context.js';
import { Loaders } from '../src/context/loaders.js';
import { scopeToTenant } from '../src/db/tenant-scope.js';
import { createApolloServer } from '../src/graphql/apollo.js';
import { stringifyAndRelease } from '../src/graphql/released-answers.js';
import { createSchema } from '../src/graphql/schema.js';
import { Student } from '../src/students/student.entity.js';
import { signIn, startTestService, type TestService } from './support/service.js';

/**
 * Apollo's gateway path keeps every finished request reachable from an old-generation object until
 * the next full GC (src/graphql/released-answers.ts), so a GraphQL request must let go of its rows and
 * its result tree itself once the answer is text.
 */
let service: TestService;
let tenantUuid: string;

beforeAll(async () => {
  service = await startTestService();
  await signIn(service, 'acme');
  const [tenant] = await service.orm.em.getConnection().execute<{ uuid: string }[]>('select uuid from tenants where identifier = ?', ['acme']);
  tenantUuid = tenant!.uuid;
}, 60_000);
afterAll(() => service.stop());

const NOWHERE = '0190b8a0-0000-7000-8000-00000000abcd';

function primedLoaders() {
  const loaders = new Loaders(scopeToTenant(service.orm.em.fork(), tenantUuid));
  const row = { uuid: NOWHERE, name: 'Held in memory only' };
  loaders.prime([{ entity: Student, rows: [row as never] }]);
  return { loaders, row };
}

test('a primed row is answered from memory until the loaders are released, then read again', async () => {
  const { loaders, row } = primedLoaders();
  expect(loaders.optional(Student, NOWHERE)).toBe(row);
  loaders.release();
  const reread = loaders.optional(Student, NOWHERE);
  expect(reread).toBeInstanceOf(Promise);
  await expect(reread).resolves.toBeNull(); // not in the database: the memory is gone
});

test('an answer through Apollo over HTTP leaves the request loaders empty', async () => {
  const apollo = createApolloServer(await createSchema(), {
    sandbox: false,
    limits: { maxDepth: 10, maxCost: 1000, maxResponseBytes: 1_000_000, jitAfterRuns: 1, fieldSuggestions: false },
  });
  await apollo.start();
  try {
    const { loaders, row } = primedLoaders();
    const response = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: 'POST', headers: new HeaderMap([['content-type', 'application/json']]), search: '', body: { query: '{ __typename }' } },
      context: async () => ({ loaders }) as unknown as RequestContext,
    });
    expect(response.body).toEqual({ kind: 'complete', string: '{"data":{"__typename":"Query"}}' });
    expect(loaders.optional(Student, NOWHERE)).not.toBe(row);
  } finally {
    await apollo.stop();
  }
});

test('the result is serialised whole, then its tree is cut from the data object', async () => {
  const page = { nodes: [{ uuid: 'a' }, { uuid: 'b' }], totalCount: 2 };
  const result = { data: { enrollments: page, viewer: null }, errors: [{ message: 'partial' }] };
  const expected = JSON.stringify(result);
  const stringify = stringifyAndRelease(1_000_000);
  expect(await stringify(result)).toBe(expected);
  expect(result.data).toEqual({});
  expect(result.errors).toEqual([{ message: 'partial' }]);
  expect(await stringify({ errors: [{ message: 'no data' }] })).toBe('{"errors":[{"message":"no data"}]}');
});
