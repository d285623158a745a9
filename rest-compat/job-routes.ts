import type { Request } from 'express';
import type { GraphQLSchema } from 'graphql';
import { toSnake } from './case.js';
import { buildOperation } from './operation.js';
import { objectInput } from './resource.js';
import type { RestRoute } from './route.js';
import { fields, nest } from './selection.js';
import { LIST_FIELDS, listBody, type ListResult } from './list-envelope.js';
import { argumentInputType, listPaging, sortVariables, whereVariables } from './query-params.js';

const JOB = fields(
  'uuid kind status total done failed results { index uuid status error { code message reason errors { field messages } } } createdAt finishedAt',
);

interface JobResult {
  status: string;
  results: { error: { errors: { field: string; messages: string[] }[] } | null }[];
}

/** A job over REST: each failed item's `errors` Laravel-shaped, `{"student_uuid": ["..."]}`. */
function presentJob(result: unknown): unknown {
  const job = result as JobResult;
  const results = job.results.map((item) => {
    if (!item.error) return item;
    const errors = Object.fromEntries(item.error.errors.map(({ field, messages }) => [field.split('.').map(toSnake).join('.'), messages]));
    return { ...item, error: { ...item.error, errors } };
  });
  return { data: { ...job, results } };
}

/**
 * `{"inputs": [...]}`, each item as the body of `POST /certificates`: snake_case → camelCase, keys the
 * input type does not define dropped. Anything that is not a list of objects goes to GraphQL as sent, to be refused there.
 */
function batchInputs(schema: GraphQLSchema, req: Request): unknown {
  const inputs = (req.body as { inputs?: unknown } | undefined)?.inputs;
  if (!Array.isArray(inputs)) return inputs;
  return inputs.map((item: unknown) => (item && typeof item === 'object' && !Array.isArray(item) ? objectInput(item, schema, 'createCertificate') : item));
}

/** `GET /jobs`: the tenant's jobs, `where[status]`, `sort[...]` and pages as every list takes them. */
function jobList(schema: GraphQLSchema, publicBaseUrl: string): RestRoute {
  const whereType = argumentInputType(schema, 'query', 'jobs', 'where');
  return {
    method: 'get',
    path: '/jobs',
    document: buildOperation(schema, {
      type: 'query',
      name: 'Jobs',
      route: 'GET /jobs',
      fields: [{ field: 'jobs', alias: 'result', selection: fields(LIST_FIELDS).concat(nest('nodes', JOB)) }],
    }),
    variables: (req) => {
      const { variables: paging } = listPaging(req.query);
      return { where: whereVariables(req.query, whereType), sort: sortVariables(req.query), ...paging };
    },
    present: (result, req) => {
      const list = result as ListResult & { nodes: unknown[] };
      const presented = list.nodes.map((node) => (presentJob(node) as { data: unknown }).data);
      return listBody(presented, listPaging(req.query).paging, list, `${publicBaseUrl}/api/v1`, req);
    },
  };
}

/** Bulk issuance and the jobs it leaves: `POST /certificates/batch`, `GET /jobs`, `GET /jobs/{uuid}`. */
export const jobRoutes = (schema: GraphQLSchema, publicBaseUrl: string): RestRoute[] => [
  jobList(schema, publicBaseUrl),
  {
    method: 'post',
    path: '/certificates/batch',
    document: buildOperation(schema, {
      type: 'mutation',
      name: 'CreateCertificates',
      route: 'POST /certificates/batch',
      fields: [{ field: 'createCertificates', alias: 'result', selection: JOB }],
    }),
    variables: (req) => ({ inputs: batchInputs(schema, req) }),
    // A batch issued during the request is complete; a long one is accepted and left to the job worker.
    status: (result) => ((result as JobResult).status === 'completed' ? 200 : 202),
    location: '/jobs/:uuid',
    present: presentJob,
  },
  {
    method: 'get',
    path: '/jobs/:uuid',
    document: buildOperation(schema, { type: 'query', name: 'Job', route: 'GET /jobs/:uuid', fields: [{ field: 'job', alias: 'result', selection: JOB }] }),
    variables: (req) => ({ uuid: req.params.uuid }),
    present: presentJob,
  },
];
