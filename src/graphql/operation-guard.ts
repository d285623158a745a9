import { type DocumentNode, GraphQLError, type GraphQLSchema } from 'graphql';
import { invalid, summarize } from '../errors/domain-error.js';
import { assertAffordable } from './cost.js';
import { unsafeTextErrors } from './text-input.js';
import { variableFieldErrors } from './variable-errors.js';

/**
 * Checks every operation passes before any resolver runs, whether a GraphQL client sent it or a
 * REST route built it: no unsafe text in its input (a 422 / BAD_USER_INPUT naming the fields), a
 * cost within `maxCost` (see cost.ts), and variables their types accept (a 422 naming the fields).
 */
export function guardOperation(
  maxCost: number,
  schema: GraphQLSchema,
  document: DocumentNode,
  variables?: Record<string, unknown>,
  operationName?: string | null,
): void {
  const textErrors = unsafeTextErrors(variables, document);
  if (textErrors) {
    throw new GraphQLError(summarize(textErrors), { originalError: invalid(textErrors), extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });
  }
  assertAffordable(maxCost, schema, document, variables, operationName);
  const refused = variableFieldErrors(schema, document, variables, operationName);
  if (refused) {
    const { errors, definitions } = refused;
    throw new GraphQLError(summarize(errors), {
      nodes: definitions,
      originalError: invalid(errors),
      extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
    });
  }
}
