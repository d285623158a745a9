import { type ASTNode, type DocumentNode, GraphQLError, type GraphQLSchema, validate, ValuesOfCorrectTypeRule } from 'graphql';
import type { RequestContext } from '../context/request-context.js';
import { type FieldErrors, invalid, summarize } from '../errors/domain-error.js';
import { assertAffordable } from './cost.js';
import { unsafeTextErrors } from './text-input.js';
import { type LiteralsRead, operationFieldErrors } from './variable-errors.js';

/** What the guard needs of the request: its tenant's EntityManager, to look up the records an input names. */
export type GuardContext = Pick<RequestContext, 'em'>;

/**
 * Checks every operation passes before any resolver runs, whether a GraphQL client sent it or a
 * REST route built it: no unsafe text in its input (a 422 / BAD_USER_INPUT naming the fields), a
 * cost within `maxCost` (see cost.ts), and an input its types and rules accept (a 422 naming every
 * refused field and every unknown record the other fields name).
 */
export async function guardOperation(
  ctx: GuardContext,
  maxCost: number,
  schema: GraphQLSchema,
  document: DocumentNode,
  variables?: Record<string, unknown>,
  operationName?: string | null,
): Promise<void> {
  const textErrors = unsafeTextErrors(variables, document);
  if (textErrors) throw badUserInput(textErrors);
  assertAffordable(maxCost, schema, document, variables, operationName);
  const refusal = await inputRefusal(ctx, schema, document, variables, operationName, 'objects');
  if (refusal) throw refusal;
}

/** The one error naming every field the input's types and rules refuse, with the unknown records, or undefined when it has none. */
async function inputRefusal(
  ctx: GuardContext,
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName: string | null | undefined,
  literals: LiteralsRead,
): Promise<GraphQLError | undefined> {
  const refused = await operationFieldErrors(ctx.em, schema, document, variables, operationName, literals);
  return refused && badUserInput(refused.errors, refused.definitions);
}

/** The guard's one error for refused input: a 400 / BAD_USER_INPUT naming every field (a 422 through REST). */
function badUserInput(errors: FieldErrors, nodes?: readonly ASTNode[]): GraphQLError {
  return new GraphQLError(summarize(errors), { nodes, originalError: invalid(errors), extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });
}

/**
 * For a document graphql-js refused for its literal values alone (`expiresAt: "garbage"`, one error
 * each, before the guard runs): the guard's one error naming them with every other field error and
 * unknown record, as for variables. Undefined when graphql-js refused anything else: its errors stand.
 */
export async function literalRefusal(
  ctx: GuardContext,
  schema: GraphQLSchema,
  document: DocumentNode,
  errors: readonly GraphQLError[],
  variables?: Record<string, unknown>,
  operationName?: string | null,
): Promise<GraphQLError | undefined> {
  if (errors.length === 0 || validate(schema, document, [ValuesOfCorrectTypeRule]).length !== errors.length) return undefined;
  return inputRefusal(ctx, schema, document, variables, operationName, 'all');
}
