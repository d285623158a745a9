import type { ApolloServerOptionsWithGateway } from '@apollo/server';
import type { RequestContext } from '../context/request-context.js';
import type { CompiledExecution } from './compiled-execution.js';

type Gateway = ApolloServerOptionsWithGateway<RequestContext>['gateway'];

/**
 * Apollo Server's one hook for replacing how a validated operation executes is its gateway
 * interface: a fixed schema and an executor. This one runs operations through `execution` (graphql-jit
 * for documents clients repeat); parsing, validation, plugins and error formatting stay Apollo's.
 */
export function compiledGateway(execution: CompiledExecution): Gateway {
  return {
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: execution.schema, coreSupergraphSdl: '' });
      return () => {};
    },
    async load() {
      return {
        // The name the client sent, not the resolved operation's: when none matches, execution must
        // report it (Apollo expects that error from the executor).
        executor: async ({ document, context, request }) =>
          execution.run({ document, operationName: request.operationName, contextValue: context, variableValues: request.variables }),
      };
    },
    async stop() {},
  };
}
