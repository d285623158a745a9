import type { Request } from 'express';
import type { GraphQLSchema } from 'graphql';
import { listBody } from './list-envelope.js';
import { argumentInputType, includedRelations, pageVariables, sortVariables, whereVariables } from './query-params.js';
import { bodyInput, selection } from './resource.js';
import { portfolioItems as items, portfolioPages as pages } from './resources.js';
import type { RestRoute } from './route.js';

const present = (value: unknown) => ({ data: value });
const uuidsOf = (req: Request): unknown => (req.body as { uuids?: unknown } | undefined)?.uuids;

/** The item routes' selection, with `includes[certificate]=1` swapping the embedded certificate for the full one. */
const itemFields = (req: Request) => selection(items, includedRelations(req.query, Object.keys(items.includes ?? {})));

/** Path params of an item route: the page, the student it must belong to, the item. */
const scope = (req: Request) => ({ pageUuid: req.params.pageUuid, studentUuid: req.params.studentUuid });
const GUARDS = '$pageUuid: ID!, $studentUuid: ID!';
const GUARD_ARGS = 'pageUuid: $pageUuid, studentUuid: $studentUuid';

/**
 * `DELETE /students/{uuid}/pages` with `{"uuids": [...]}` (the spec's form; `.../pages/batch/destroy` as every collection
 * has), and every item route. A page or item under another student or page is a 404, as a missing one.
 */
export function portfolioRoutes(schema: GraphQLSchema, publicBaseUrl: string): RestRoute[] {
  const whereType = argumentInputType(schema, 'query', 'portfolioItems', 'where');
  const sortType = argumentInputType(schema, 'query', 'portfolioItems', 'sort');
  const deletePages: Omit<RestRoute, 'path'> = {
    method: 'delete',
    status: 204,
    document: `mutation DeletePages($uuids: [ID!]!, $studentUuid: ID!) { result: deletePortfolioPages(uuids: $uuids, studentUuid: $studentUuid) }`,
    variables: (req) => ({ uuids: uuidsOf(req), studentUuid: req.params.studentUuid }),
  };
  return [
    { ...deletePages, path: `${pages.path}/batch/destroy` },
    { ...deletePages, path: pages.path },
    {
      method: 'get',
      path: items.path,
      document: (req) =>
        `query ListItems($where: ${whereType.name}, $sort: ${sortType.name}, $first: Int, $after: String, ${GUARDS}) {
          parent: portfolioPage(uuid: $pageUuid, studentUuid: $studentUuid) { uuid }
          result: portfolioItems(where: $where, sort: $sort, first: $first, after: $after) { totalCount nodes { ${itemFields(req)} } }
        }`,
      variables: (req) => {
        const { page, perPage, ...paging } = pageVariables(req.query);
        const where = { ...whereVariables(req.query, whereType), pageUuid: req.params.pageUuid };
        return { where, sort: sortVariables(req.query), ...paging, ...scope(req) };
      },
      present: (result, req) => {
        const { total_count: total, nodes } = result as { total_count: number; nodes: unknown[] };
        const { page, perPage } = pageVariables(req.query);
        return listBody(nodes, { page, perPage, total }, `${publicBaseUrl}/api/v1`, req);
      },
    },
    {
      method: 'post',
      path: items.path,
      status: 201,
      document: `mutation AddItem($input: PortfolioItemInput!, $studentUuid: ID!) { result: addPortfolioItem(input: $input, studentUuid: $studentUuid) { ${items.fields} } }`,
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
      document: `mutation DeleteItems($uuids: [ID!]!, ${GUARDS}) { result: deletePortfolioItems(uuids: $uuids, ${GUARD_ARGS}) }`,
      variables: (req) => ({ uuids: uuidsOf(req), ...scope(req) }),
    },
    {
      method: 'get',
      path: `${items.path}/:uuid`,
      document: (req) => `query Item($uuid: ID!, ${GUARDS}) { result: portfolioItem(uuid: $uuid, ${GUARD_ARGS}) { ${itemFields(req)} } }`,
      variables: (req) => ({ uuid: req.params.uuid, ...scope(req) }),
      present,
    },
    {
      method: 'patch',
      path: `${items.path}/:uuid`,
      document: `mutation UpdateItem($uuid: ID!, $input: UpdatePortfolioItemInput!, ${GUARDS}) { result: updatePortfolioItem(uuid: $uuid, input: $input, ${GUARD_ARGS}) { ${items.fields} } }`,
      variables: (req) => ({ uuid: req.params.uuid, input: bodyInput(req, schema, 'updatePortfolioItem'), ...scope(req) }),
      present,
    },
    {
      method: 'delete',
      path: `${items.path}/:uuid`,
      status: 204,
      document: `mutation DeleteItem($uuid: ID!, ${GUARDS}) { result: deletePortfolioItem(uuid: $uuid, ${GUARD_ARGS}) }`,
      variables: (req) => ({ uuid: req.params.uuid, ...scope(req) }),
    },
  ];
}
