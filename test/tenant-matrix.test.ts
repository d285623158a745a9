/**
 * Tenant isolation, generated: every REST route of the route table and every GraphQL query and
 * mutation, called by tenant B with tenant A's uuids. Nothing of A may show up in any answer, every
 * answer is the one a uuid that exists nowhere gets (no existence oracle), a foreign uuid in the path
 * is a plain 404, and A's data is byte-for-byte the same afterwards.
 */
import { randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { routes } from '../rest-compat/routes.js';
import { createSchema } from '../src/graphql/schema.js';
import { factories } from './support/factories.js';
import { upload } from './support/files.js';
import { diplomaPdf } from './support/pdf.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

jest.setTimeout(180_000);

const MARKER = 'ZZSECRETACME';
/** Stands for the uuid in a GraphQL operation's variables until a call fills it in. */
const PLACEHOLDER = '00000000-0000-4000-8000-00000000beef';
let service: TestService;
let schema: GraphQLSchema;
let acme: ApiClient;
let globex: ApiClient;
/** Tenant A's uuids, by the path segment that names their collection. */
let foreign: Record<string, string>;

beforeAll(async () => {
  service = await startTestService({ NOTIFICATION_WORKER: 'off' });
  schema = await createSchema();
  [acme, globex] = await Promise.all([signIn(service, 'acme'), signIn(service, 'globex')]);
  foreign = await tenantAWorld(acme);
});
afterAll(() => service.stop());

/** One live row of every resource in tenant A, every name carrying the marker. */
async function tenantAWorld(api: ApiClient): Promise<Record<string, string>> {
  const make = factories(api);
  const institution = await make.institution({ name: `${MARKER} University`, website: 'https://acme.example' });
  const course = await make.course({ institution_uuid: institution.uuid, name: `${MARKER} Course` });
  const group = await make.group(course.uuid, { name: `${MARKER} Group` });
  const module = await make.module({ institution_uuid: institution.uuid, name: `${MARKER} Module` });
  await api.rest('POST', `/courses/${course.uuid}/attach/modules`, { module_uuid: module.uuid, course_module_group_uuid: group.uuid });
  const cohort = await make.cohort({ course_uuid: course.uuid, name: `${MARKER} Cohort` });
  const student = await make.student({ name: `${MARKER} Student`, email: 'zzsecretacme@example.org' });
  const enrollment = await make.enrollment({
    student_uuid: student.uuid,
    course_uuid: course.uuid,
    cohort_uuid: cohort.uuid,
    completion_status: 'completed',
    completed_at: '2026-06-30',
  });
  const template = await make.template({ institution_uuid: institution.uuid, name: `${MARKER} Template` });
  const webhook = await api.rest('POST', '/webhooks', { url: 'http://127.0.0.1:9/zzsecretacme', events: ['file.uploaded'], description: `${MARKER} hook` });
  expect(webhook.status).toBe(201);
  const files = await upload(api, [
    [await diplomaPdf(`${MARKER} diploma`), `${MARKER}.pdf`],
    [await diplomaPdf(`${MARKER} draft`), `${MARKER}-2.pdf`],
    [await diplomaPdf(`${MARKER} batch`), `${MARKER}-3.pdf`],
  ]);
  expect(files.status).toBe(201);
  const [issuedSource, draftSource, batchSource] = files.body.data;
  const refs = { institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid, enrollment_uuid: enrollment.uuid };
  const issued = await api.rest('POST', '/certificates', { ...refs, file_uuid: issuedSource.uuid, finish: true });
  expect(issued.status).toBe(201);
  const draft = await api.rest('POST', '/certificates', { ...refs, file_uuid: draftSource.uuid });
  expect(draft.status).toBe(201);
  const page = await api.rest('POST', `/students/${student.uuid}/pages`, { slug: 'zzsecretacme-page', is_public: true, bio: `${MARKER} bio` });
  expect(page.status).toBe(201);
  const item = await api.rest('POST', `/students/${student.uuid}/pages/${page.body.data.uuid}/items`, { certificate_uuid: issued.body.data.uuid });
  expect(item.status).toBe(201);
  const [delivery] = (await api.rest('GET', `/webhooks/${webhook.body.data.uuid}/deliveries`)).body.data;
  const job = await api.rest('POST', '/certificates/batch', { inputs: [{ ...refs, file_uuid: batchSource.uuid }] });
  expect(job.body.data.uuid).toBeDefined();
  return {
    webhooks: webhook.body.data.uuid,
    deliveries: delivery.uuid,
    institutions: institution.uuid,
    modules: module.uuid,
    courses: course.uuid,
    groups: group.uuid,
    cohorts: cohort.uuid,
    students: student.uuid,
    enrollments: enrollment.uuid,
    'certificate-templates': template.uuid,
    certificates: issued.body.data.uuid,
    drafts: draft.body.data.uuid,
    files: issuedSource.uuid,
    pages: page.body.data.uuid,
    items: item.body.data.uuid,
    jobs: job.body.data.uuid,
  };
}

const COLLECTIONS = ['institutions', 'modules', 'courses', 'cohorts', 'students', 'enrollments', 'certificate-templates', 'certificates', 'files'];

/** Everything tenant A can read about its own rows; compared before and after B's attempts. */
async function snapshotOf(api: ApiClient): Promise<string> {
  const parts: unknown[] = [];
  for (const collection of COLLECTIONS) parts.push((await api.rest('GET', `/${collection}?per_page=100`)).body.data);
  parts.push((await api.rest('GET', `/courses/${foreign.courses}/modules/groups`)).body.data);
  parts.push((await api.rest('GET', `/certificates/${foreign.certificates}?includes[files]=1`)).body.data);
  parts.push((await api.rest('GET', `/students/${foreign.students}/pages`)).body.data);
  parts.push((await api.rest('GET', `/students/${foreign.students}/pages/${foreign.pages}/items`)).body.data);
  return JSON.stringify(parts);
}

/** A's uuid for a path parameter, named after the collection segment before it. */
function pathFor(path: string, collectionUuid: (segment: string) => string): string {
  const segments = path.split('/');
  return segments
    .map((segment, i) => {
      if (!segment.startsWith(':')) return segment;
      const owner = segments[i - 1] === 'groups' ? 'groups' : segments[i - 1];
      return collectionUuid(owner);
    })
    .join('/');
}

/** A body that would be valid for any resource, every reference pointing at tenant A's rows. */
function bodyWithForeignReferences(ids: Record<string, string>, target: string): Record<string, unknown> {
  const foreign = ids;
  return {
    name: 'Globex name',
    country: 'BR',
    code: 'GX-1',
    email: 'globex@example.org',
    date_of_birth: '2001-01-01',
    version: '1.0',
    path: '/t.pdf',
    institution_uuid: foreign.institutions,
    course_uuid: foreign.courses,
    student_uuid: foreign.students,
    cohort_uuid: foreign.cohorts,
    enrollment_uuid: foreign.enrollments,
    file_uuid: foreign.files,
    module_uuid: foreign.modules,
    module_uuids: [foreign.modules],
    course_module_group_uuid: foreign.groups,
    certificate_template_uuid: foreign['certificate-templates'],
    enrolled_at: '2025-01-01',
    original_name: 'renamed.pdf',
    slug: 'globex-page',
    certificate_uuid: foreign.certificates,
    reason: 'taken over',
    url: 'https://globex.example/hook',
    events: ['file.uploaded'],
    uuids: [target],
  };
}

function leaksIn(text: string, uuids: string[]): string[] {
  const found = uuids.filter((uuid) => text.includes(uuid));
  if (text.toUpperCase().includes(MARKER)) found.push(MARKER);
  return found;
}

/** The answer with every given uuid replaced by one placeholder, to compare with a nowhere-uuid's answer. */
function normalized(response: { status: number; body: unknown }, uuids: string[]): string {
  let text = `${response.status} ${JSON.stringify(response.body)}`;
  for (const uuid of uuids) text = text.replaceAll(uuid, '<uuid>');
  return text;
}

describe('tenant isolation across every route', () => {
  it('answers every REST route called with another tenant’s uuids as if they existed nowhere, and changes nothing', async () => {
    const before = await snapshotOf(acme);
    const uuids = Object.values(foreign);
    const nowhere = Object.fromEntries(Object.keys(foreign).map((key) => [key, randomUUID()]));
    const problems: string[] = [];
    let calls = 0;
    for (const route of routes(schema, 'http://x')) {
      const method = route.method.toUpperCase();
      const hasParams = route.path.includes(':');
      // Each uuid-taking route is tried with the uuid of its own collection, and for drafts too.
      const targets = hasParams && route.path.startsWith('/certificates') ? ['certificates', 'drafts'] : [null];
      for (const target of targets) {
        const call = (ids: Record<string, string>) => {
          const path = pathFor(route.path, (segment) => ids[target && segment === 'certificates' ? target : segment]);
          const body = method === 'GET' ? undefined : bodyWithForeignReferences(ids, ids[route.path.split('/')[1]] ?? ids.institutions);
          return globex.rest(method, path, body);
        };
        const [response, control] = [await call(foreign), await call(nowhere)];
        calls++;
        const label = `${method} ${route.path}${target ? ` (${target})` : ''}`;
        if (hasParams && response.status !== 404) problems.push(`${label} → ${response.status}, expected 404`);
        const created = response.status < 300 && !hasParams;
        const leaks = leaksIn(JSON.stringify((created || method === 'GET' ? response.body?.data : response.body) ?? null), created ? uuids : []);
        if (leaks.length) problems.push(`${label} leaks ${leaks.join(', ')}: ${JSON.stringify(response.body).slice(0, 200)}`);
        if (!created && normalized(response, uuids) !== normalized(control, Object.values(nowhere))) {
          problems.push(
            `${label} answers differently for an existing foreign uuid: ${normalized(response, uuids).slice(0, 160)} vs ${normalized(control, Object.values(nowhere)).slice(0, 160)}`,
          );
        }
      }
    }
    // Filters on A's uuids find nothing for B.
    for (const [collection, field, owner] of [
      ['modules', 'institution_uuid', 'institutions'],
      ['courses', 'institution_uuid', 'institutions'],
      ['cohorts', 'course_uuid', 'courses'],
      ['enrollments', 'student_uuid', 'students'],
      ['enrollments', 'course_uuid', 'courses'],
      ['certificates', 'student_uuid', 'students'],
      ['certificates', 'institution_uuid', 'institutions'],
      ['certificate-templates', 'institution_uuid', 'institutions'],
    ]) {
      const response = await globex.rest('GET', `/${collection}?where[${field}]=${foreign[owner]}`);
      calls++;
      if (response.status !== 200 || response.body.data.length !== 0)
        problems.push(`GET /${collection} where ${field} → ${response.status} ${JSON.stringify(response.body).slice(0, 160)}`);
    }
    expect(calls).toBeGreaterThan(70);
    expect(problems).toEqual([]);
    expect(await snapshotOf(acme)).toEqual(before);
  });

  it('answers every GraphQL query and mutation called with another tenant’s uuids as if they existed nowhere, and changes nothing', async () => {
    const before = await snapshotOf(acme);
    const problems: string[] = [];
    let calls = 0;
    let notFound = 0;
    for (const operation of ['query', 'mutation'] as const) {
      const root = operation === 'query' ? schema.getQueryType()! : schema.getMutationType()!;
      for (const field of Object.values(root.getFields())) {
        if (!takesIds(field)) continue;
        // The document and the variables' shape are the field's: built once, the uuid filled in per call.
        const { document, variables } = operationFor(operation, field, PLACEHOLDER);
        const shape = JSON.stringify(variables);
        const ask = (id: string) => globex.graphql(document, JSON.parse(shape.replaceAll(PLACEHOLDER, id)));
        // The answer to a uuid that exists nowhere is the field's, whichever of A's rows is tried: asked once per field.
        const control = randomUUID();
        const nowhere = await ask(control);
        for (const [key, uuid] of Object.entries(foreign)) {
          const response = await ask(uuid);
          calls++;
          const label = `${field.name}(${key})`;
          const text = JSON.stringify(response.body);
          const codes: string[] = (response.body.errors ?? []).map((error: { extensions?: { code?: string } }) => error.extensions?.code);
          if (leaksIn(text, []).length) problems.push(`${label} leaks: ${text.slice(0, 200)}`);
          if (codes.includes('NOT_FOUND')) notFound++;
          if (codes.includes('INTERNAL_SERVER_ERROR') || response.status >= 500) problems.push(`${label} → ${response.status} ${codes}`);
          if (normalized(response, [uuid]) !== normalized(nowhere, [control])) {
            problems.push(
              `${label} answers differently for an existing foreign uuid: ${normalized(response, [uuid]).slice(0, 160)} vs ${normalized(nowhere, [control]).slice(0, 160)}`,
            );
          }
        }
      }
    }
    expect(calls).toBeGreaterThan(200);
    // The generated arguments get past validation to the lookups, not only to input errors.
    expect(notFound).toBeGreaterThan(100);
    expect(problems).toEqual([]);
    expect(await snapshotOf(acme)).toEqual(before);
  });
});

function takesIds(field: GraphQLField<unknown, unknown>): boolean {
  const seen = new Set<string>();
  const hasId = (type: GraphQLInputType): boolean => {
    const named = getNamedType(type);
    if (isScalarType(named)) return named.name === 'ID';
    if (!isInputObjectType(named) || seen.has(named.name)) return false;
    seen.add(named.name);
    return Object.values(named.getFields()).some((inner) => hasId(inner.type));
  };
  return field.args.some((arg) => hasId(arg.type));
}

/** A value for every argument: ids are the foreign uuid, other required fields something plausible. */
function valueFor(type: GraphQLInputType, uuid: string, depth = 0): unknown {
  if (isNonNullType(type)) return valueFor(type.ofType, uuid, depth);
  if (isListType(type)) return [valueFor(type.ofType, uuid, depth)];
  const named = getNamedType(type);
  if (isEnumType(named)) return named.getValues()[0].value;
  if (isInputObjectType(named)) {
    const value: Record<string, unknown> = {};
    for (const inner of Object.values(named.getFields())) {
      const isId = getNamedType(inner.type).name === 'ID';
      if ((isNonNullType(inner.type) || isId) && depth < 3) value[inner.name] = valueFor(inner.type, uuid, depth + 1);
    }
    return value;
  }
  switch (named.name) {
    case 'ID':
      return uuid;
    case 'Int':
      return 1;
    case 'Float':
      return 1;
    case 'Boolean':
      return false;
    case 'DateTime':
      return '2025-01-01T00:00:00Z';
    case 'Date':
      return '2025-01-01';
    case 'EmailAddress':
      return 'globex@example.org';
    case 'JSON':
    case 'JSONObject':
      return {};
    default:
      return 'Globex value';
  }
}

function operationFor(operation: 'query' | 'mutation', field: GraphQLField<unknown, unknown>, uuid: string) {
  const definitions = field.args.map((arg) => `$${arg.name}: ${arg.type.toString()}`);
  const args = field.args.map((arg) => `${arg.name}: $${arg.name}`);
  const variables = Object.fromEntries(
    field.args
      .filter((arg) => isNonNullType(arg.type) || getNamedType(arg.type).name === 'ID' || isInputObjectType(getNamedType(arg.type)))
      .map((arg) => [arg.name, valueFor(arg.type, uuid)]),
  );
  const document = `${operation}${definitions.length ? `(${definitions.join(', ')})` : ''} { ${field.name}${args.length ? `(${args.join(', ')})` : ''}${selectionOf(field)} }`;
  return { document, variables };
}

/** Every scalar field of the result (and of its nodes, for connections), so any leak would show. */
function selectionOf(field: GraphQLField<unknown, unknown>): string {
  const named = getNamedType(field.type);
  if (!isObjectType(named)) return '';
  const scalars = (type: typeof named) =>
    Object.values(type.getFields())
      .filter((inner) => inner.args.every((arg) => !isNonNullType(arg.type)) && !isObjectType(getNamedType(inner.type)))
      .map((inner) => inner.name);
  const nodes = named.getFields().nodes;
  const nodeType = nodes && getNamedType(nodes.type);
  if (nodeType && isObjectType(nodeType)) return ` { totalCount nodes { ${scalars(nodeType).join(' ')} } }`;
  return ` { ${scalars(named).join(' ')} }`;
}
