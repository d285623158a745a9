import type { Request } from 'express';
import type { GraphQLSchema } from 'graphql';
import { LIST_FIELDS, listBody, type ListResult } from './list-envelope.js';
import { buildOperation, type RootField } from './operation.js';
import { argumentInputType, listPaging, sortVariables, whereVariables } from './query-params.js';
import { bodyInput, shapedReads } from './resource.js';
import { portfolioItems as items, portfolioPages as pages } from './resources.js';
import type { RestRoute } from './route.js';
import { fields, nest, type Selection } from './selection.js';

const present = (value: unknown) => ({ data: value });
const uuidsOf = (req: Request): unknown => (req.body as { uuids?: unknown } | undefined)?.uuids;

/** Path params of an item route: the page, the student it must belong to. */
const scope = (req: Request) => ({ pageUuid: req.params.pageUuid, studentUuid: req.params.studentUuid });

/**
 * `DELETE /students/{uuid}/pages` with `{"uuids": [...]}` (the spec's form; `.../pages/batch/destroy` as every collection
 * has), and every item route. A page or item under another student or page is a 404, as a missing one.
 */
export function portfolioRoutes(schema: GraphQLSchema, publicBaseUrl: string): RestRoute[] {
  const whereType = argumentInputType(schema, 'query', 'portfolioItems', 'where');
  const selection = fields(items.fields);
  const operation = (type: 'query' | 'mutation', name: string, route: string, roots: RootField[]) =>
    buildOperation(schema, { type, name, route, fields: roots });
  const mutation = (route: string, name: string, root: string, withSelection = true) =>
    operation('mutation', name, route, [{ field: root, alias: 'result', ...(withSelection ? { selection } : {}) }]);
  // The page named by the path must exist under the student named by the path, else the list is a 404.
  const reads = { includes: Object.keys(items.includes ?? {}) };
  const pageCheck: RootField = { field: 'portfolioPage', alias: 'parent', variables: { uuid: 'pageUuid' }, selection: fields('uuid') };
  const deletePages = (path: string): RestRoute => ({
    method: 'delete',
    path,
    status: 204,
    document: mutation(`DELETE ${path}`, 'DeletePages', 'deletePortfolioPages', false),
    variables: (req) => ({ uuids: uuidsOf(req), studentUuid: req.params.studentUuid }),
    docs: { body: { uuids: 'uuids' } },
  });
  return [
    deletePages(`${pages.path}/batch/destroy`),
    deletePages(pages.path),
    {
      method: 'get',
      path: items.path,
      document: shapedReads(items, (nodes: Selection) =>
        operation('query', 'ListItems', `GET ${items.path}`, [
          pageCheck,
          { field: 'portfolioItems', alias: 'result', selection: fields(LIST_FIELDS).concat(nest('nodes', nodes)) },
        ]),
      ),
      variables: (req) => {
        const { variables: paging } = listPaging(req.query);
        const where = { ...whereVariables(req.query, whereType), pageUuid: req.params.pageUuid };
        return { where, sort: sortVariables(req.query), ...paging, ...scope(req) };
      },
      present: (result, req) => {
        const list = result as ListResult & { nodes: unknown[] };
        return listBody(list.nodes, listPaging(req.query).paging, list, `${publicBaseUrl}/api/v1`, req);
      },
      docs: reads,
    },
    {
      method: 'post',
      path: items.path,
      status: 201,
      location: `${items.path}/:uuid`,
      document: mutation(`POST ${items.path}`, 'AddItem', 'addPortfolioItem'),
      variables: (req) => ({
        input: bodyInput(req, schema, 'addPortfolioItem', [], { pageUuid: req.params.pageUuid as string }),
        studentUuid: req.params.studentUuid,
      }),
      missingParentField: 'pageUuid',
      present,
    },
    {
      method: 'delete',
      path: `${items.path}/batch/destroy`,
      status: 204,
      document: mutation(`DELETE ${items.path}/batch/destroy`, 'DeleteItems', 'deletePortfolioItems', false),
      variables: (req) => ({ uuids: uuidsOf(req), ...scope(req) }),
      docs: { body: { uuids: 'uuids' } },
    },
    {
      method: 'get',
      path: `${items.path}/:uuid`,
      document: shapedReads(items, (nodes: Selection) =>
        operation('query', 'Item', `GET ${items.path}/:uuid`, [{ field: 'portfolioItem', alias: 'result', selection: nodes }]),
      ),
      variables: (req) => ({ uuid: req.params.uuid, ...scope(req) }),
      present,
      docs: reads,
    },
    {
      method: 'patch',
      path: `${items.path}/:uuid`,
      document: mutation(`PATCH ${items.path}/:uuid`, 'UpdateItem', 'updatePortfolioItem'),
      variables: (req) => ({ uuid: req.params.uuid, input: bodyInput(req, schema, 'updatePortfolioItem'), ...scope(req) }),
      present,
    },
    {
      method: 'delete',
      path: `${items.path}/:uuid`,
      status: 204,
      document: mutation(`DELETE ${items.path}/:uuid`, 'DeleteItem', 'deletePortfolioItem', false),
      variables: (req) => ({ uuid: req.params.uuid, ...scope(req) }),
    },
  ];
}
