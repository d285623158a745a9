import type { DocumentNode } from 'graphql';
import type { CompiledExecution } from '../src/graphql/compiled-execution.js';
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

/**
 * Runs a route's operation (built and validated by operation.ts) against the shared schema with the request's context: the REST routes
 * reach the business core only through here, so authentication, validation, batching and errors
 * are the GraphQL ones.
 */
export async function executeOperation(
  execution: CompiledExecution,
  context: RequestContext,
  document: DocumentNode,
  variables: Record<string, unknown>,
  maxCost: number,
): Promise<Record<string, unknown>> {
  try {
    await guardOperation(context, maxCost, execution.schema, document, variables);
  } catch (error) {
    throw new OperationError(classifyError(error), error);
  }
  const result = await execution.run({ document, contextValue: context, variableValues: variables });
  if (result.errors?.length) {
    const classified = result.errors.map((error) => ({ error, classified: classifyError(error) }));
    // Report the most specific failure: a client error before an internal one; all field errors together.
    const chosen = classified.find((entry) => !entry.classified.internal) ?? classified[0]!;
    if (chosen.classified.code === 'BAD_USER_INPUT') {
      const fieldErrors = Object.assign({}, ...classified.map((entry) => entry.classified.fieldErrors ?? {}));
      chosen.classified = { ...chosen.classified, fieldErrors, message: summarize(fieldErrors, chosen.classified.message) };
    }
    if (chosen.classified.internal) context.logger.error({ err: chosen.error.originalError ?? chosen.error }, 'REST operation failed');
    throw new OperationError(chosen.classified, chosen.error);
  }
  return result.data as Record<string, unknown>;
}
