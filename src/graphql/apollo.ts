import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import type { GraphQLSchema } from 'graphql';
import type { RequestContext } from '../context/request-context.js';
import { classifyError, errorHeaders } from '../errors/classify.js';
import { formatGraphqlError } from './error-format.js';
import { type GraphqlLimits, graphqlLimits } from './limits.js';
import { literalRefusals } from './literal-refusals.js';
import { noteOperations } from './operation-notes.js';
import { compiledGateway } from './apollo-executor.js';
import { CompiledExecution } from './compiled-execution.js';
import { type ParkedAnswers, releaseLoadedRows, stringifyAndRelease } from './released-answers.js';

/** Logs failures that are our bug with the request id; the client only sees a generic message. */
const logInternalErrors: ApolloServerPlugin<RequestContext> = {
  async requestDidStart() {
    return {
      async didEncounterErrors({ contextValue, errors }) {
        for (const error of errors) {
          if (classifyError(error).internal) {
            contextValue.logger.error({ err: error.originalError ?? error, path: error.path }, 'GraphQL operation failed');
          }
        }
      },
    };
  },
};

/** An operation the classifier calls a busy service (no database connection, every worker busy) answers 503 with Retry-After, as REST does. */
const serviceUnavailableStatus: ApolloServerPlugin<RequestContext> = {
  async requestDidStart() {
    return {
      async willSendResponse({ response, errors }) {
        if (!errors?.some((error) => classifyError(error).code === 'SERVICE_UNAVAILABLE')) return;
        response.http.status = 503;
        for (const [name, value] of Object.entries(errorHeaders('SERVICE_UNAVAILABLE', 'none'))) response.http.headers.set(name.toLowerCase(), value);
      },
    };
  },
};

/** The example operations Sandbox opens with (a checked-in document; test/graphql-relay.test.ts validates it against the schema). */
export const SANDBOX_EXAMPLES = readFileSync(fileURLToPath(new URL('./sandbox-examples.graphql', import.meta.url)), 'utf8');

/** Sandbox opens with the examples and the headers every call needs; the tenant is the seeded (or demo) one. */
function sandboxLandingPage(tenant: string) {
  return ApolloServerPluginLandingPageLocalDefault({
    embed: true,
    includeCookies: false,
    document: SANDBOX_EXAMPLES,
    variables: { first: 10 },
    headers: { 'X-Tenant': tenant, Authorization: 'Bearer <token from POST /api/v1/oauth/token>' },
  });
}

export function createApolloServer(
  schema: GraphQLSchema,
  options: { sandbox: boolean; sandboxTenant?: string; limits: GraphqlLimits; parked?: ParkedAnswers },
): ApolloServer<RequestContext> {
  const limits = graphqlLimits(schema, options.limits);
  return new ApolloServer<RequestContext>({
    // Clients' repeated documents run compiled (graphql-jit), from their `jitAfterRuns`th run on.
    gateway: compiledGateway(new CompiledExecution(schema, options.limits.jitAfterRuns)),
    validationRules: limits.validationRules,
    parseOptions: limits.parseOptions,
    allowBatchedHttpRequests: false,
    csrfPrevention: true,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    // The service's shutdown owns SIGINT/SIGTERM and stops Apollo in order; Apollo's own handlers would race it.
    stopOnTerminationSignals: false,
    formatError: formatGraphqlError(options.limits.fieldSuggestions),
    stringifyResult: stringifyAndRelease(options.limits.maxResponseBytes, options.parked),
    plugins: [
      // First: it may replace the answer the others read (noteOperations notes its error codes).
      literalRefusals(schema, options.limits.fieldSuggestions),
      noteOperations,
      releaseLoadedRows,
      logInternalErrors,
      serviceUnavailableStatus,
      ...limits.plugins,
      // Every response is authenticated and tenant-specific, so HTTP cache hints have no use; the
      // default cache-control plugin would still hook every field resolution to compute them.
      ApolloServerPluginCacheControlDisabled(),
      options.sandbox ? sandboxLandingPage(options.sandboxTenant ?? 'demo') : ApolloServerPluginLandingPageDisabled(),
    ],
  });
}
