import { jest } from '@jest/globals';
import { createSchema } from '../src/graphql/schema.js';
import { routes } from '../rest-compat/routes.js';
import { factories } from './support/factories.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

// About 2,500 requests in one test: more than Jest's default allows on a busy 2-core machine.
jest.setTimeout(300_000);

let service: TestService;
let api: ApiClient;
let realUuid: string;

beforeAll(async () => {
  service = await startTestService({ NOTIFICATION_WORKER: 'off' });
  api = await signIn(service, 'acme');
  realUuid = (await factories(api).course()).uuid;
});
afterAll(() => service.stop());

const BODIES: unknown[] = [
  [],
  'a string',
  42,
  null,
  { uuids: 'not-a-list' },
  { uuids: [1, {}, null] },
  { name: ['array'], country: { nested: true }, grade: 'ten', enrolled_at: '2024-13-45', finish: 'yes', modules: 'x', reason: 7 },
  { institution_uuid: 'x', course_uuid: '00000000-0000-0000-0000-000000000000', student_uuid: null, file_uuid: 12, expires_at: 'tomorrow' },
  { name: 'x'.repeat(70_000), date_of_birth: '0000-00-00', email: '@', design_config: 'not-an-object', order: 1e308, workload: -1e20 },
  { module_uuids: [null], modules: [{ module_uuid: 5, order: 'first' }], course_module_group_uuid: [] },
];
const QUERIES = [
  '',
  "?where[name]=O'Brien%22;--",
  '?where[code]=%E2%82%AC%5C',
  '?where[nope]=1',
  '?where=1',
  '?where[status][]=a&sort=1',
  '?sort[column]=__proto__&sort[order]=sideways',
  '?page=-1&per_page=1e9',
  '?includes=all&includes[x][y]=1',
  '?where[course_uuid]=%00',
];
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const MALFORMED_PATH_VALUES = ['not-a-uuid', "' or 1=1 --", '%E2%82%AC'];

/**
 * One route's requests: every body (or query) with a real uuid and with the nil one, which reach a
 * handler's reads deepest, and with one malformed value in turn, so each malformed value meets every
 * route with three or four of them. Without a path parameter the value changes nothing: each body once.
 */
function requestsFor(route: { method: string; path: string }): { path: string; body: unknown; query: string }[] {
  const variants = route.method === 'get' ? QUERIES.map((query) => ({ body: undefined as unknown, query })) : BODIES.map((body) => ({ body, query: '' }));
  if (!route.path.includes(':')) return variants.map((variant) => ({ path: route.path, ...variant }));
  return variants.flatMap((variant, index) =>
    [realUuid, NIL_UUID, MALFORMED_PATH_VALUES[index % MALFORMED_PATH_VALUES.length]!].map((value) => ({
      path: route.path.replace(/:\w+/g, value),
      ...variant,
    })),
  );
}

describe('hostile input', () => {
  it('never makes any REST route answer with a 5xx', async () => {
    const table = routes(await createSchema(), 'http://x');
    const failures: string[] = [];
    for (const route of table) {
      for (const { path, body, query } of requestsFor(route)) {
        const response = await api.rest(route.method.toUpperCase(), `${path}${query}`, body === undefined ? undefined : JSON.stringify(body));
        if (response.status >= 500)
          failures.push(
            `${route.method.toUpperCase()} ${path}${query} ${JSON.stringify(body)?.slice(0, 80)} → ${response.status} ${JSON.stringify(response.body)}`,
          );
        else if (response.status >= 400) expect(response.body).toHaveProperty('message');
      }
    }
    expect(failures).toEqual([]);
    // About 2,500 sequential requests: on a loaded 2-core machine they take longer than the default 30 s.
  }, 300_000);

  it('never answers GraphQL variables of the wrong shape with an internal error', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['mutation($i: InstitutionInput!) { createInstitution(input: $i) { uuid } }', { i: { name: 1, country: [] } }],
      ['mutation($i: UpdateEnrollmentInput!) { updateEnrollment(uuid: "x", input: $i) { uuid } }', { i: { grade: 'a' } }],
      ['query($w: CertificateWhere) { certificates(where: $w, first: 1000) { totalCount } }', { w: { status: 'lost' } }],
      ['query { certificates(after: "garbage") { totalCount } }', {}],
      ['mutation { deleteCourses(uuids: ["x", "y"]) }', {}],
      ['mutation { attachModulesToCourse(courseUuid: "x", modules: []) { uuid } }', {}],
    ];
    for (const [query, variables] of cases) {
      const response = await api.graphql(query, variables);
      const codes = (response.body.errors ?? []).map((error: { extensions: { code: string } }) => error.extensions.code);
      expect(codes.length).toBeGreaterThan(0);
      expect(codes).not.toContain('INTERNAL_SERVER_ERROR');
      expect(response.status).toBeLessThan(500);
    }
  });
});
