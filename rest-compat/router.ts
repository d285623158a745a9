import { type NextFunction, type Request, type RequestHandler, type Response, Router } from 'express';
import type { GraphQLSchema } from 'graphql';
import { requestContext } from '../src/auth/authenticate.js';
import { TOKEN_ROUTE, tokenRoute } from '../src/auth/token.route.js';
import type { Config } from '../src/config.js';
import type { ServiceRuntime } from '../src/context/request-context.js';
import type { Orm } from '../src/db/orm.js';
import type { Logger } from '../src/logger.js';
import type { RateLimits } from '../src/rate-limits/rate-limits.js';
import { executeOperation, OperationError } from './execute.js';
import { sendJson } from './json-response.js';
import { CompiledExecution } from '../src/graphql/compiled-execution.js';
import { httpErrorHandler, sendError } from '../src/http/error-response.js';
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

function handler(execution: CompiledExecution, route: RestRoute, limits: { maxCost: number; maxResponseBytes: number }): RequestHandler {
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
  orm: Orm;
  config: Config;
  logger: Logger;
  limits: RateLimits;
  runtime: ServiceRuntime;
  /** The route table, when the caller built it already (src/app.ts also documents it). */
  table?: RestRoute[];
  /** `Idempotency-Key` on writes (src/http/idempotency.ts), after authentication and the JSON body. */
  idempotent: RequestHandler;
  /** Bearer token and tenant (src/auth/authenticate.ts), shared with /graphql. */
  auth: RequestHandler;
}): Router {
  const { schema, orm, config, logger, limits, runtime, idempotent, auth } = deps;
  const router = Router();
  router[TOKEN_ROUTE.method](TOKEN_ROUTE.path, ...tokenRoute(orm, config.tokenTtlSeconds, logger, limits.token));
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
  // One router per first path segment (`/enrollments`, `/certificates`, ...), picked by a map lookup:
  // Express tries a router's routes one by one, and the table has over a hundred.
  const byCollection = new Map<string, Router>();
  for (const route of deps.table ?? routes(schema, config.publicBaseUrl)) {
    const collection = firstSegment(route.path);
    let collectionRouter = byCollection.get(collection);
    if (!collectionRouter) byCollection.set(collection, (collectionRouter = Router()));
    collectionRouter[route.method](route.path, auth, json, idempotent, slots, multipart, handler(execution, route, restLimits));
  }
  const toCollection = (req: Request, res: Response, next: NextFunction) => {
    const collectionRouter = byCollection.get(firstSegment(req.path));
    if (collectionRouter) collectionRouter(req, res, next);
    else next();
  };
  // Listed as a router's layers are, so whatever walks the app's routes (test/openapi.test.ts) sees them.
  router.use(Object.assign(toCollection, { stack: [...byCollection.values()].flatMap((collectionRouter) => collectionRouter.stack) }));
  router.use((_req, res) => sendError(res, { code: 'NOT_FOUND', message: 'Not found.' }));
  router.use(httpErrorHandler(logger));
  return router;
}
