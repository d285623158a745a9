import { buildSchema, type DocumentNode, GraphQLObjectType, GraphQLSchema, print } from 'graphql';
import type { Request } from 'express';
import { createSchema, printSdl } from '../src/graphql/schema.js';
import { rootFieldsOf } from '../rest-compat/operation.js';
import { resourceRoutes } from '../rest-compat/resource.js';
import * as resources from '../rest-compat/resources.js';
import type { RestRoute } from '../rest-compat/route.js';
import { routes } from '../rest-compat/routes.js';

let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await createSchema();
});

const bare = { query: {}, params: {} } as unknown as Request;
const documentOf = (route: RestRoute, req: Request = bare): DocumentNode => (typeof route.document === 'function' ? route.document(req) : route.document);

/** The schema as SDL with `edit` applied: what a later change to a resolver would produce. */
const changedSchema = (edit: (sdl: string) => string) => buildSchema(edit(printSdl(schema)));

describe('REST operations', () => {
  it('builds every route of the table from the schema, each operation naming its root field as result', () => {
    const table = routes(schema, 'http://x');
    expect(table.length).toBeGreaterThan(60);
    for (const route of table) expect([route.path, print(documentOf(route))]).toEqual([route.path, expect.stringMatching(/\bresult: \w+/)]);
  });

  it('gives every resource the schema can create or list its REST routes (a forgotten entry fails here)', () => {
    const run = new Set(routes(schema, 'http://x').flatMap((route) => rootFieldsOf(documentOf(route))));
    const creates = Object.keys(schema.getMutationType()!.getFields()).filter((name) => /^create[A-Z]/.test(name));
    const lists = Object.entries(schema.getQueryType()!.getFields())
      .filter(([, field]) => /Connection!?$/.test(String(field.type)))
      .map(([name]) => name);
    expect(creates.length).toBeGreaterThan(5);
    expect([...creates, ...lists].filter((name) => !run.has(name))).toEqual([]);
  });

  it('refuses to build the table when the schema loses a field a route selects, naming the route', () => {
    const withoutLegalName = changedSchema((sdl) => sdl.replace(/^ {2}(?:"""[^\n]*"""\n {2})?legalName: String\n/m, ''));
    expect(() => routes(withoutLegalName, 'http://x')).toThrow(/^REST route GET \/institutions: .*Cannot query field "legalName" on type "Institution"/);
  });

  it('refuses to build the table when a mutation a route runs leaves the schema', () => {
    const mutations = schema.getMutationType()!.toConfig();
    const { issueCertificate: _removed, ...kept } = mutations.fields;
    const config = schema.toConfig();
    const types = config.types.filter((type) => type.name !== mutations.name);
    const gone = new GraphQLSchema({ ...config, types, mutation: new GraphQLObjectType({ ...mutations, fields: kept }) });
    expect(() => routes(gone, 'http://x')).toThrow(
      'REST route POST /certificates/:uuid/issue: its GraphQL operation does not match the schema: the schema has no mutation field issueCertificate',
    );
  });

  it('validates a broken include at build time, not on the first request that asks for it', () => {
    const broken = { ...resources.modules, includes: { institution: 'institution { uuid nickname }' } };
    expect(() => resourceRoutes(broken, schema, 'http://x')).toThrow(/^REST route GET \/modules: .*Cannot query field "nickname" on type "Institution"/);
  });

  it('puts an included relation where its embedded form was, and appends one that was not embedded', () => {
    const [list] = resourceRoutes(resources.courses, schema, 'http://x');
    const req = { query: { includes: { groups: '1', institution: '1' } }, params: {} } as unknown as Request;
    const text = print(documentOf(list!, req)).replace(/\s+/g, ' ');
    expect(text).toContain('is_active: isActive institution { uuid external_id: externalId name legal_name: legalName');
    expect(text).toMatch(
      /updated_at: updatedAt module_groups: moduleGroups \{ uuid name order is_active: isActive created_at: createdAt updated_at: updatedAt \} \} \} \}$/,
    );
    expect(documentOf(list!, req)).toBe(documentOf(list!, req));
  });
});
