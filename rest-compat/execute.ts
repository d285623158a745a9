import { execute, type GraphQLSchema, Kind, parse, type DocumentNode, validate, visit } from 'graphql';
import { toSnake } from './case.js';
import type { RequestContext } from '../src/context/request-context.js';
import { classifyError, type ClassifiedError } from '../src/errors/classify.js';
import { summarize } from '../src/errors/domain-error.js';
import { guardOperation } from '../src/graphql/operation-guard.js';

export class OperationError extends Error {
  constructor(
    readonly classified: ClassifiedError,
    readonly cause: unknown,
  ) {
    super(classified.message);
  }
}

const parsed = new Map<string, DocumentNode>();

/** REST answers in snake_case: each camelCase field gets its snake_case alias, so results need no renaming pass. */
function withSnakeCaseAliases(document: DocumentNode): DocumentNode {
  return visit(document, {
    Field(node) {
      const snake = toSnake(node.name.value);
      return node.alias || snake === node.name.value ? undefined : { ...node, alias: { kind: Kind.NAME, value: snake } };
    },
  });
}

/** Parses, validates and snake-cases a REST route's operation once; a broken route document fails loudly at first use. */
function documentFor(schema: GraphQLSchema, source: string): DocumentNode {
  let document = parsed.get(source);
  if (!document) {
    document = parse(source);
    const problems = validate(schema, document);
    if (problems.length > 0) throw new Error(`REST operation does not match the schema: ${problems.map((p) => p.message).join('; ')}`);
    document = withSnakeCaseAliases(document);
    parsed.set(source, document);
  }
  return document;
}

/**
 * Runs a GraphQL operation against the shared schema with the request's context: the REST routes
 * reach the business core only through here, so authentication, validation, batching and errors
 * are the GraphQL ones.
 */
export async function executeOperation(
  schema: GraphQLSchema,
  context: RequestContext,
  source: string,
  variables: Record<string, unknown>,
  maxCost: number,
): Promise<Record<string, unknown>> {
  const document = documentFor(schema, source);
  try {
    guardOperation(maxCost, schema, document, variables);
  } catch (error) {
    throw new OperationError(classifyError(error), error);
  }
  const result = await execute({ schema, document, contextValue: context, variableValues: variables });
  if (result.errors?.length) {
    const classified = result.errors.map((error) => ({ error, classified: classifyError(error) }));
    // Report the most specific failure: a client error before an internal one; all field errors together.
    const chosen = classified.find((entry) => !entry.classified.internal) ?? classified[0]!;
    if (chosen.classified.code === 'BAD_USER_INPUT') {
      const fieldErrors = Object.assign({}, ...classified.map((entry) => entry.classified.fieldErrors ?? {}));
      chosen.classified = { ...chosen.classified, fieldErrors, message: summarize(fieldErrors, chosen.classified.message) };
    }
    if (chosen.classified.internal)
      context.logger.error({ err: chosen.error.originalError ?? chosen.error, requestId: context.requestId }, 'REST operation failed');
    throw new OperationError(chosen.classified, chosen.error);
  }
  return result.data as Record<string, unknown>;
}
