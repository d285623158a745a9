import type { Request } from 'express';
import type { DocumentNode } from 'graphql';

/** The collection a path below /api/v1 belongs to: `enrollments` of `/enrollments/:uuid`. */
export const firstSegment = (path: string): string => path.split('/', 2)[1] ?? '';

/** One documented REST path, expressed as the GraphQL operation it runs. */
export interface RestRoute {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Express path below /api/v1. */
  path: string;
  /**
   * The operation (built by operation.ts, validated when the route table is built), selecting its
   * root field as `result`; a function when the query string shapes it (`includes[...]`).
   */
  document: DocumentNode | ((req: Request) => DocumentNode);
  /** Path params, then query string, then body become the operation's variables. */
  variables?: (req: Request) => Record<string, unknown>;
  /** The response body for the operation's `result`; default `{ data: result }` in snake_case. */
  present?: (result: unknown, req: Request) => unknown;
  /** Nested creates: the input field filled from the path's parent; its 422 is the path's 404. */
  missingParentField?: string;
  /**
   * What a 201/202 answer created, as the GET path of it (`/jobs/:uuid`): `:uuid` is the result's
   * uuid, other parameters the request's. Answered as `Location`.
   */
  location?: string;
  /** 200 by default; 201 for creates; 204 answers with no body; a function when the result decides (202 for a queued job). */
  status?: 200 | 201 | 204 | ((result: unknown) => 200 | 201 | 202);
  /** What the OpenAPI document (openapi/) cannot read from the operation itself. */
  docs?: RouteDocs;
}

/**
 * The rest of a route's contract comes from its operation: path parameters, `where`/`sort`/paging
 * from the variables it declares, the body from its `input` (or `files`) argument, the answer from
 * its selection.
 */
export interface RouteDocs {
  /** `includes[relation]=1` choices of a read. */
  includes?: string[];
  /** Body members that are not an `input` argument: body key → the operation variable it fills. */
  body?: Record<string, string>;
  /** `data` is this field of the result, answered as it is (a JSON document). */
  dataField?: string;
}
