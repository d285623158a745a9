import type { ApolloServerPlugin } from '@apollo/server';
import { ApolloServerErrorCode } from '@apollo/server/errors';
import type { GraphQLError, GraphQLSchema } from 'graphql';
import type { RequestContext } from '../context/request-context.js';
import { formatGraphqlError } from './error-format.js';
import { literalRefusal } from './operation-guard.js';

/**
 * graphql-js refuses bad literal values (`expiresAt: "garbage"`) while validating the document, one
 * message each, before the operation guard has looked at the input: such a response becomes the
 * guard's one BAD_USER_INPUT naming every refused field — the literals, the variables, the rules and
 * the unknown records — as a client sending variables gets it. List it before the plugins that read
 * the answer's errors (operation-notes.ts).
 */
export function literalRefusals(schema: GraphQLSchema, fieldSuggestions: boolean): ApolloServerPlugin<RequestContext> {
  const format = formatGraphqlError(fieldSuggestions);
  return {
    async requestDidStart() {
      let refusal: GraphQLError | undefined;
      return {
        async didEncounterErrors({ contextValue, document, errors, request, operation }) {
          const invalidDocument = !operation && errors.every((error) => error.extensions.code === ApolloServerErrorCode.GRAPHQL_VALIDATION_FAILED);
          if (!document || !invalidDocument) return;
          // A failure here (the database, say) leaves graphql-js's own answer standing.
          refusal = await literalRefusal(contextValue, schema, document, errors, request.variables, request.operationName).catch((error: unknown) => {
            contextValue.logger.warn({ err: error }, 'literal refusal not built');
            return undefined;
          });
        },
        async willSendResponse({ response }) {
          if (refusal && response.body.kind === 'single') response.body.singleResult = { errors: [format(refusal.toJSON(), refusal)] };
        },
      };
    },
  };
}
