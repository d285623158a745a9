import type { ApolloServer } from '@apollo/server';
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response, Router } from 'express';
import { createRestRouter } from '../rest-compat/router.js';
import { routes } from '../rest-compat/routes.js';
import type { RestRoute } from '../rest-compat/route.js';
import type { GraphQLSchema } from 'graphql';
import { otherMethodsOf } from '../rest-compat/method-not-allowed.js';
import { API_BASE, openApiDocument } from '../rest-compat/openapi/openapi-document.js';
import { apiReferencePage, OPENAPI_ROUTE, openApiRoute } from '../rest-compat/openapi/api-reference.routes.js';
import { TOKEN_ROUTE, tokenRoute } from './auth/token.route.js';
import { FILE_DOWNLOAD_ROUTE } from './files/file-download.route.js';
import { HEALTH_ROUTES } from './health/health.routes.js';
import { corsPolicy, PUBLIC_DOCUMENT_PATHS, publicDocumentCors } from './http/cors.js';
import { httpErrorHandler, sendError } from './http/error-response.js';
import { authenticate, requestContext } from './auth/authenticate.js';
import { PrincipalCache } from './auth/principal-cache.js';
import type { Config } from './config.js';
import type { RequestContext, ServiceRuntime } from './context/request-context.js';
import type { Orm } from './db/orm.js';
import { fileDownloadRoutes } from './files/file-download.route.js';
import { TEMPLATE_PREVIEW_ROUTE, templatePreviewRoutes } from './templates/template-preview.route.js';
import { uploadSlots } from './files/upload-slots.js';
import { createApolloServer } from './graphql/apollo.js';
import { ParkedAnswers } from './graphql/released-answers.js';
import { graphqlHandler } from './graphql/express-handler.js';
import { graphqlRequestErrors } from './graphql/error-format.js';
import { createSchema } from './graphql/schema.js';
import { healthRoutes } from './health/health.routes.js';
import { noteArrival } from './health/idle-memory.js';
import { sandboxLandingPolicy, securityHeaders } from './http/security-headers.js';
import { limitByAddress } from './rate-limits/http-limits.js';
import { limitWorkerTime } from './rate-limits/worker-time-limit.js';
import { createRateLimits } from './rate-limits/rate-limits.js';
import { jsonBody } from './http/json-body.js';
import { graphqlMultipartBody } from './http/graphql-multipart.js';
import { MULTIPART_FIELD_BYTES } from './http/multipart-form.js';
import { idempotency } from './http/idempotency.js';
import { IdempotencyStore } from './idempotency/idempotency.repository.js';
import { linkNotes, logRequest, recordRequests, requestLogger } from './http/request-record.js';
import { publicContexts } from './http/public-context.js';
import { HOSTED_BADGE_ROUTES, hostedBadgeRoutes, UNBAKE_ROUTE, unbakeRoutes } from './badges/badge.routes.js';
import { CLR_ROUTES, clrRoutes } from './badges/clr/clr.routes.js';
import { WALLET_ROUTES, walletRoutes } from './wallets/wallet.routes.js';
import { CREDENTIAL_VERIFY_ROUTE, credentialVerifyRoutes, HOSTED_CREDENTIAL_ROUTES, hostedCredentialRoutes } from './badges/v3/credential.routes.js';
import { BLOCKCERTS_ROUTES, blockcertsRoutes } from './anchoring/blockcerts.routes.js';
import { htmlNotFound, publicPages } from './pages/public-pages.routes.js';
import { OEMBED_ROUTE, oembedRoutes } from './pages/oembed.route.js';
import { portfolioPages } from './portfolios/portfolio-page.route.js';
import { VERIFICATION_ROUTES, verificationApi } from './verification/verification.routes.js';
import { metricsRoute } from './metrics/metrics.route.js';
import { graphiqlRoutes } from './ide/graphiql.routes.js';
import { landingPage } from './pages/landing.route.js';
import { createServiceMetrics } from './metrics/service-metrics.js';
import type { Logger } from './logger.js';

export interface AppParts {
  app: Express;
  apollo: ApolloServer<RequestContext>;
}

/**
 * A browser opening /graphql (development) gets Apollo Sandbox without a token. Only a bare GET
 * qualifies: with no query string there is no operation (and no persisted-query hash) to run.
 */
function isLandingPageRequest(req: Request, sandbox: boolean): boolean {
  const bare = req.method === 'GET' && !req.get('authorization') && Object.keys(req.query).length === 0;
  return sandbox && bare && (req.get('accept') ?? '').includes('text/html');
}

/**
 * The routes written by hand outside the REST table, each described next to its handler
 * (src/http/route-contract.ts): the OpenAPI document and the 405 answers read them from here
 * (test/openapi.test.ts fails when the app answers a route this list or the table lacks).
 */
export const HAND_WRITTEN_ROUTES = [
  TOKEN_ROUTE,
  OPENAPI_ROUTE,
  ...Object.values(VERIFICATION_ROUTES),
  FILE_DOWNLOAD_ROUTE,
  TEMPLATE_PREVIEW_ROUTE,
  UNBAKE_ROUTE,
  ...Object.values(HOSTED_BADGE_ROUTES),
  ...Object.values(HOSTED_CREDENTIAL_ROUTES),
  CREDENTIAL_VERIFY_ROUTE,
  ...Object.values(CLR_ROUTES),
  ...Object.values(WALLET_ROUTES),
  ...Object.values(BLOCKCERTS_ROUTES),
  ...Object.values(HEALTH_ROUTES),
  OEMBED_ROUTE,
];

/** The OpenAPI document served at /api/v1/openapi.json; sdk/generate-types.ts builds the SDK's types from it without a server. */
export function apiDocument(schema: GraphQLSchema, publicBaseUrl: string, table: RestRoute[] = routes(schema, publicBaseUrl)): Record<string, unknown> {
  return openApiDocument(schema, publicBaseUrl, { table, contracts: HAND_WRITTEN_ROUTES }, TOKEN_ROUTE);
}

/** The REST table and its OpenAPI document per schema and public address: built once, as the schema is. */
const restTables = new WeakMap<GraphQLSchema, Map<string, { table: RestRoute[]; document: Record<string, unknown> }>>();

function restTable(schema: GraphQLSchema, publicBaseUrl: string): { table: RestRoute[]; document: Record<string, unknown> } {
  let byAddress = restTables.get(schema);
  if (!byAddress) restTables.set(schema, (byAddress = new Map()));
  let built = byAddress.get(publicBaseUrl);
  if (!built) {
    const table = routes(schema, publicBaseUrl);
    byAddress.set(publicBaseUrl, (built = { table, document: apiDocument(schema, publicBaseUrl, table) }));
  }
  return built;
}

export interface AppDependencies {
  config: Config;
  orm: Orm;
  logger: Logger;
  runtime: ServiceRuntime;
  /** Principals of recent tokens, kept current by revocations (src/auth/principal-revocations.ts); without it every request looks its token up. */
  principals?: PrincipalCache;
}

/** Requests, not probes and scrapes, keep the process from counting as idle (health/idle-memory.ts). */
const PROBE_PATHS = new Set([...Object.values(HEALTH_ROUTES).map((route) => route.path), '/metrics']);
const countArrivals: RequestHandler = (req, _res, next) => {
  if (!PROBE_PATHS.has(req.path)) noteArrival();
  next();
};

export async function createApp({ config, orm, logger, runtime, principals = new PrincipalCache() }: AppDependencies): Promise<AppParts> {
  const schema = await createSchema();
  const sandbox = config.env !== 'production';
  const graphqlLimits = {
    maxDepth: config.graphqlMaxDepth,
    maxCost: config.graphqlMaxCost,
    maxResponseBytes: config.responseMaxBytes,
    jitAfterRuns: config.graphqlJitAfterRuns,
    fieldSuggestions: sandbox,
  };
  // Large answers pass from Apollo's serialiser to the handler below as slices (graphql/released-answers.ts).
  const parked = new ParkedAnswers();
  const apollo = createApolloServer(schema, { sandbox, sandboxTenant: config.seed?.tenant, limits: graphqlLimits, parked });
  await apollo.start();

  const { settings: uploads } = runtime.files;
  const app = express();
  app.disable('x-powered-by');
  app.use(countArrivals);
  app.use(securityHeaders(config));
  app.set('query parser', 'extended'); // where[field]=value, sort[column]=..., includes[relation]=1
  app.set('trust proxy', config.trustProxy);
  const cors = corsPolicy(config);
  // Before authentication: a preflight carries no token.
  app.use(PUBLIC_DOCUMENT_PATHS, publicDocumentCors);
  if (cors) app.use(['/api', '/graphql'], cors);
  app.use(requestLogger(logger));
  const metrics = createServiceMetrics(orm, config.dbPoolMax);
  app.use(
    recordRequests((record) => {
      logRequest(logger, record);
      metrics.observeRequest(record);
    }),
  );
  const limits = createRateLimits(orm, config);
  const auth = authenticate(orm, config, runtime, limits, principals);
  const idempotent = idempotency(new IdempotencyStore(orm));
  if (sandbox)
    app.get(
      '/graphql',
      sandboxLandingPolicy((req) => isLandingPageRequest(req, sandbox)),
    );
  app.use(
    '/graphql',
    (req: Request, res: Response, next: NextFunction) => (isLandingPageRequest(req, sandbox) ? next() : auth(req, res, next)),
    uploadSlots(runtime.files),
    // GraphQL multipart requests (uploadFiles); Apollo's CSRF prevention still demands a preflight header.
    graphqlMultipartBody({
      maxFileBytes: uploads.maxFileBytes,
      maxFiles: uploads.maxFiles,
      maxFieldBytes: MULTIPART_FIELD_BYTES,
      maxJsonDepth: config.jsonMaxDepth,
      blocks: runtime.files.uploadBlocks,
    }),
    jsonBody({ limit: config.jsonBodyLimit, maxDepth: config.jsonMaxDepth }),
    idempotent,
    graphqlHandler(apollo, async ({ res }) => linkNotes(requestContext(res), res), config.responseMaxBytes, parked),
    graphqlRequestErrors,
  );
  const { table, document } = restTable(schema, config.publicBaseUrl);
  const publicContext = publicContexts(orm, runtime, config.publicBaseUrl);
  const publicReads = limitByAddress(limits.store, limits.publicReads);
  const verifyLimit = limitByAddress(limits.store, limits.verify);
  const workerTime = limitWorkerTime(limits.store, limits.publicWorkerTime);
  const notFound = (_req: Request, res: Response) => sendError(res, { code: 'NOT_FOUND', message: 'Not found.' });

  // /api/v1: the REST table's collections (each authenticates), then the public routes written by
  // hand (no token or tenant: the token endpoint, downloads, verification), each path's other methods a 405.
  const api = Router();
  api.use(createRestRouter({ schema, config, runtime, idempotent, auth, table }));
  api.use(templatePreviewRoutes(auth));
  api.post(TOKEN_ROUTE.path, ...tokenRoute(orm, config.tokenTtlSeconds, logger, limits.token));
  api.use(openApiRoute(document));
  api.post(VERIFICATION_ROUTES.document.path, verifyLimit, workerTime);
  api.get([VERIFICATION_ROUTES.facts.path, FILE_DOWNLOAD_ROUTE.path], publicReads);
  api.use(fileDownloadRoutes(publicContext));
  api.use(verificationApi(publicContext, config));
  api.post(UNBAKE_ROUTE.path, verifyLimit, workerTime);
  api.use(unbakeRoutes(publicContext, config));
  api.post(CREDENTIAL_VERIFY_ROUTE.path, verifyLimit, workerTime);
  api.use(credentialVerifyRoutes(publicContext, config));
  api.use(otherMethodsOf(HAND_WRITTEN_ROUTES.filter((contract) => contract.base === API_BASE)));
  api.use(notFound);
  app.use(API_BASE, api);

  // The root: health, metrics, pages and IDEs, and the public Open Badges documents.
  app.use(healthRoutes(orm));
  app.use(metricsRoute(metrics, config.metricsToken));
  app.get('/', landingPage({ ides: sandbox }));
  if (sandbox) app.use(graphiqlRoutes());
  app.use(apiReferencePage());
  app.use(oembedRoutes(publicContext, publicReads));
  app.use(publicPages({ publicContext, config, limits }));
  // Open Badges 2.0 and 3.0: hosted documents, baked images, DID documents, status lists (rate limited as public reads).
  app.get('/ob/*path', publicReads);
  app.get(['/ob/*path/image.png', '/ob/*path/image.svg'], workerTime);
  app.use(hostedBadgeRoutes(publicContext));
  app.use(hostedCredentialRoutes(publicContext));
  app.get('/clr/*path', publicReads);
  app.use(clrRoutes(publicContext));
  // OpenID4VCI: wallets take the credentials (docs/wallets.md).
  app.use(walletRoutes(publicContext, publicReads));
  // Blockcerts: anchored credentials, issuer profiles, revocation lists (as public reads).
  app.get('/blockcerts/*path', publicReads);
  app.use(blockcertsRoutes(publicContext));
  app.use(portfolioPages(publicContext, publicReads));
  app.use(otherMethodsOf(HAND_WRITTEN_ROUTES.filter((contract) => contract.base === '')));

  app.use(htmlNotFound);
  app.use(notFound);
  app.use(httpErrorHandler(logger));
  return { app, apollo };
}
