import type { Request } from 'express';

/** One documented REST path, expressed as the GraphQL operation it runs. */
export interface RestRoute {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Express path below /api/v1. */
  path: string;
  /** The operation's source; a function when the query string shapes the selection (includes). */
  document: string | ((req: Request) => string);
  /** Path params, then query string, then body become the operation's variables. */
  variables?: (req: Request) => Record<string, unknown>;
  /** The root field whose value is the response's `data`. */
  field: string;
  /** 200 by default; 201 for creates; 204 answers with no body. */
  status?: 200 | 201 | 204;
}
