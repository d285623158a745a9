import { type NextFunction, type Request, type RequestHandler, type Response, Router } from 'express';
import type { GraphQLSchema } from 'graphql';
import { requestContext } from '../src/auth/authenticate.js';
import type { Config } from '../src/config.js';
import type { ServiceRuntime } from '../src/context/request-context.js';
import { executeOperation, OperationError } from './execute.js';
import { sendJson } from './json-response.js';
import { CompiledExecution } from '../src/graphql/compiled-execution.js';
import { sendError } from '../src/http/error-response.js';
import { mostLiteralFirst, notAllowed } from './method-not-allowed.js';
import { multipartBody } from './multipart.js';
import { MULTIPART_FIELD_BYTES } from '../src/http/multipart-form.js';
import { uploadSlots } from '../src/files/upload-slots.js';
import { DomainError } from '../src/errors/domain-error.js';
import { jsonBody } from '../src/http/json-body.js';
import { firstSegment, type RestRoute } from './route.js';
import { routes } from './routes.js';

/** A nested create whose only complaint is the parent named by the path: that path does not exist. */
function parentIsMissing(route: RestRoute, error: OperationError): boolean {
  const fields = Object.keys(error.classified.fieldErrors ?? {});
  return route.missingParentField !== undefined && fields.length === 1 && fields[0] === route.missingParentField;
}

/** The absolute URL of what a 201/202 answer created (`route.location` filled from the request and the result's uuid). */
function createdLocation(publicBaseUrl: string) {
  return (route: RestRoute, result: unknown, req: Request): string | undefined => {
    const created = Array.isArray(result) ? (result.length === 1 ? result[0] : undefined) : result;
    const uuid = (created as { uuid?: unknown } | null | undefined)?.uuid;
    if (!route.location || typeof uuid !== 'string') return undefined;
    const path = route.location.replace(/:(\w+)/g, (_match, name: string) => encodeURIComponent(name === 'uuid' ? uuid : String(req.params[name])));
    return `${publicBaseUrl}/api/v1${path}`;
  };
}

function handler(
  execution: CompiledExecution,
  route: RestRoute,
  limits: { maxCost: number; maxResponseBytes: number },
  location: ReturnType<typeof createdLocation>,
): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const context = requestContext(res);
    try {
      const document = typeof route.document === 'function' ? route.document(req) : route.document;
      const variables = route.variables?.(req) ?? {};
      const data = await executeOperation(execution, context, document, variables, limits.maxCost);
      if (route.status === 204) {
        res.status(204).end();
        return;
      }
      const result = data.result;
      const status = typeof route.status === 'function' ? route.status(result) : (route.status ?? 200);
      const created = status === 201 || status === 202 ? location(route, result, req) : undefined;
      if (created) res.location(created);
      await sendJson(res, status, route.present ? route.present(result, req) : { data: result }, limits.maxResponseBytes);
    } catch (error) {
      if (error instanceof OperationError && parentIsMissing(route, error)) sendError(res, { code: 'NOT_FOUND', message: 'Not found.' });
      else if (error instanceof OperationError) sendError(res, error.classified);
      else if (error instanceof DomainError) sendError(res, error);
      else next(error);
    }
  };
}

/** /api/v1: the documented REST paths, each a GraphQL operation on the shared schema. */
export function createRestRouter(deps: {
  schema: GraphQLSchema;
  config: Config;
  runtime: ServiceRuntime;
  /** The route table, when the caller built it already (src/app.ts also documents it). */
  table?: RestRoute[];
  /** `Idempotency-Key` on writes (src/http/idempotency.ts), after authentication and the JSON body. */
  idempotent: RequestHandler;
  /** Bearer token and tenant (src/auth/authenticate.ts), shared with /graphql. */
  auth: RequestHandler;
}): Router {
  const { schema, config, runtime, idempotent, auth } = deps;
  const router = Router();
  const json = jsonBody({ limit: config.jsonBodyLimit, maxDepth: config.jsonMaxDepth });
  const multipart = multipartBody({
    maxFileBytes: config.uploadMaxFileBytes,
    maxFiles: config.uploadMaxFiles,
    maxFieldBytes: MULTIPART_FIELD_BYTES,
    blocks: runtime.files.uploadBlocks,
  });
  const slots = uploadSlots(runtime.files);
  const restLimits = { maxCost: config.graphqlMaxCost, maxResponseBytes: config.responseMaxBytes };
  // Every route's documents are the service's own: compiled on first use (unless compiling is off).
  const execution = new CompiledExecution(schema, Math.min(config.graphqlJitAfterRuns, 1));
  // A router per collection (`/enrollments`, `/certificates`, ...) mounted at its prefix: Express
  // tries a dozen prefixes, then only that collection's few paths.
  const byCollection = new Map<string, RestRoute[]>();
  for (const route of deps.table ?? routes(schema, config.publicBaseUrl)) {
    const collection = firstSegment(route.path);
    byCollection.set(collection, [...(byCollection.get(collection) ?? []), route]);
  }
  const location = createdLocation(config.publicBaseUrl);
  for (const [collection, collectionRoutes] of byCollection) {
    const collectionRouter = Router();
    const paths = mostLiteralFirst([...new Set(collectionRoutes.map((route) => route.path))].map((path) => ({ path })));
    for (const { path } of paths) {
      const onPath = collectionRoutes.filter((route) => route.path === path);
      const expressRoute = collectionRouter.route(path.slice(collection.length + 1) || '/');
      for (const route of onPath) expressRoute[route.method](auth, json, idempotent, slots, multipart, handler(execution, route, restLimits, location));
      expressRoute.all(notAllowed(onPath.map((route) => route.method)));
    }
    router.use(`/${collection}`, collectionRouter);
  }
  return router;
}
