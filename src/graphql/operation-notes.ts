import type { ApolloServerPlugin } from '@apollo/server';
import type { RequestContext } from '../context/request-context.js';
import { noteErrorCodes, noteOperation } from '../http/request-record.js';

/** Tells the request's log line and metrics which operation ran and which error codes it answered. */
export const noteOperations: ApolloServerPlugin<RequestContext> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ contextValue, operationName }) {
        noteOperation(contextValue, operationName ?? 'anonymous');
      },
      async willSendResponse({ contextValue, response }) {
        const errors = response.body.kind === 'single' ? response.body.singleResult.errors : undefined;
        if (errors?.length)
          noteErrorCodes(
            contextValue,
            errors.map((error) => String(error.extensions?.code ?? 'INTERNAL_SERVER_ERROR')),
          );
      },
    };
  },
};
