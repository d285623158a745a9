import { parse } from 'graphql';
import { CompiledExecution } from '../src/graphql/compiled-execution.js';
import { toGlobalId } from '../src/graphql/node.js';
import { createSchema } from '../src/graphql/schema.js';
import { factories } from './support/factories.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

/**
 * A client's document runs on graphql-js the first time and compiled (graphql-jit) from its second
 * run on (GRAPHQL_JIT_AFTER_RUNS=2, the default): both must give the same answer, errors included.
 */
let service: TestService;
let acme: ApiClient;

beforeAll(async () => {
  service = await startTestService({ GRAPHQL_JIT_AFTER_RUNS: '2' });
  acme = await signIn(service, 'acme');
  const make = factories(acme);
  const course = await make.course();
  for (let index = 0; index < 3; index++) await make.enrollment({ course_uuid: course.uuid });
}, 60_000);
afterAll(() => service.stop());

const MISSING = '0190b8a0-0000-7000-8000-000000000000';

const OPERATIONS: [string, string, Record<string, unknown>][] = [
  [
    'a page with relations, nulls, dates, timestamps and the total',
    `query($first: Int) { enrollments(first: $first) { totalCount pageInfo { hasNextPage endCursor }
      edges { cursor node { id uuid completionStatus grade enrolledAt completedAt createdAt
        student { uuid name dateOfBirth socialName createdAt } course { uuid name workload isActive } cohort { uuid } } } } }`,
    { first: 2 },
  ],
  ['a missing record: null with NOT_FOUND beside the data', `query($a: ID!) { institution(uuid: $a) { name } viewer { clientId } }`, { a: MISSING }],
  ['node(id:) through the interface, with a malformed id', `query($id: ID!) { node(id: $id) { id __typename } }`, { id: 'garbage' }],
  ['node(id:) of an unknown record', `query($id: ID!) { node(id: $id) { id } }`, { id: toGlobalId('Student', MISSING) }],
  ['field errors of the arguments', `query($first: Int, $last: Int) { students(first: $first, last: $last) { nodes { uuid } } }`, { first: 2, last: 2 }],
  ['a refused mutation', `mutation($input: CreateInstitutionInput!) { createInstitution(input: $input) { uuid } }`, { input: { name: '', country: 'BR' } }],
];

describe('compiled execution', () => {
  it.each(OPERATIONS)('answers %s the same on its first (graphql-js) and later (compiled) runs', async (_name, query, variables) => {
    const runs = [];
    for (let run = 0; run < 3; run++) runs.push(await acme.graphql(query, variables));
    const [interpreted, ...compiled] = runs.map((response) => ({ status: response.status, body: response.body }));
    for (const answer of compiled) expect(answer).toEqual(interpreted);
  });

  it('refuses an operation name the document does not have, on every run', async () => {
    for (let run = 0; run < 3; run++) {
      const response = await fetch(`${service.url}/graphql`, {
        method: 'POST',
        headers: acme.headers({ 'content-type': 'application/json' }),
        body: JSON.stringify({ query: '{ viewer { clientId } }', operationName: 'Nope' }),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ errors: [{ message: 'Unknown operation named "Nope".', extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } }] });
    }
  });

  it('compiles a client document on its second run, never with 0, and runs it the same', async () => {
    const schema = await createSchema();
    const document = parse('{ __typename }');
    const twice = new CompiledExecution(schema, 2);
    const answers = [];
    for (let run = 1; run <= 2; run++) {
      answers.push(await twice.run({ document, contextValue: {} }));
      expect(twice.isCompiled(document)).toBe(run === 2);
    }
    expect(answers[1]).toEqual(answers[0]);
    const invented = await twice.run({ document, operationName: 'Invented', contextValue: {} });
    expect(invented.errors?.[0]?.message).toBe('Unknown operation named "Invented".');
    expect(twice.isCompiled(document, 'Invented')).toBe(false);
    const never = new CompiledExecution(schema, 0);
    for (let run = 1; run <= 3; run++) await never.run({ document, contextValue: {} });
    expect(never.isCompiled(document)).toBe(false);
  });
});
