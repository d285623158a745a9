import { type DocumentNode, execute, type ExecutionResult, GraphQLError, type GraphQLSchema, Kind } from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';

export interface ExecutionRequest {
  document: DocumentNode;
  operationName?: string | null;
  contextValue: unknown;
  variableValues?: Record<string, unknown> | null;
}

interface Entry {
  runs: number;
  compiled?: CompiledQuery;
}

/**
 * Executes validated operations with graphql-jit: a document the service runs again and again (every
 * REST route's, a frontend's few queries) becomes a JavaScript function that calls the same
 * resolvers without graphql-js walking the document per field and row. Keyed by the parsed
 * document object, so compiled functions live exactly as long as Apollo's document cache (or the
 * REST route table) keeps the document. Anything graphql-jit cannot compile runs through graphql-js.
 */
export class CompiledExecution {
  private readonly entries = new WeakMap<DocumentNode, Map<string, Entry>>();

  /**
   * `compileAfterRuns`: 1 for documents the service builds itself (the REST routes); more for client
   * documents, so a client sending one-off documents only ever gets them interpreted, never compiled;
   * 0 never compiles (GRAPHQL_JIT_AFTER_RUNS=0, should graphql-jit ever misbehave).
   */
  constructor(
    readonly schema: GraphQLSchema,
    private readonly compileAfterRuns: number,
  ) {}

  run({ document, operationName, contextValue, variableValues }: ExecutionRequest): Promise<ExecutionResult> | ExecutionResult {
    // A name the document lacks gets graphql-js's error and no entry: clients cannot grow the cache by inventing names.
    if (operationName && !hasOperation(document, operationName)) return execute({ schema: this.schema, document, operationName, contextValue, variableValues });
    const entry = this.entry(document, operationName ?? undefined);
    if (!entry.compiled && this.compileAfterRuns > 0 && ++entry.runs >= this.compileAfterRuns) {
      const compiled = this.compile(document, operationName ?? undefined);
      if (compiled) entry.compiled = compiled;
      else entry.runs = -Infinity; // not compilable: graphql-js runs it (and reports why, if it is the document's fault)
    }
    if (entry.compiled) {
      const result = entry.compiled.query(undefined, contextValue, variableValues ?? {});
      return result instanceof Promise ? result.then(withUpstreamErrors) : withUpstreamErrors(result);
    }
    return execute({ schema: this.schema, document, operationName, contextValue, variableValues });
  }

  private compile(document: DocumentNode, operationName?: string): CompiledQuery | undefined {
    try {
      const compiled = compileQuery(this.schema, document, operationName);
      return isCompiledQuery(compiled) ? compiled : undefined;
    } catch {
      return undefined;
    }
  }

  /** Whether `document` runs compiled from now on. */
  isCompiled(document: DocumentNode, operationName?: string): boolean {
    return this.entries.get(document)?.get(operationName ?? '')?.compiled !== undefined;
  }

  private entry(document: DocumentNode, operationName = ''): Entry {
    let byName = this.entries.get(document);
    if (!byName) this.entries.set(document, (byName = new Map()));
    let entry = byName.get(operationName);
    if (!entry) byName.set(operationName, (entry = { runs: 0 }));
    return entry;
  }
}

/**
 * graphql-jit's errors imitate graphql-js's but leave `extensions` undefined, which Apollo and
 * error classification read: each becomes a graphql-js GraphQLError with the same message,
 * locations, path and original error.
 */
function withUpstreamErrors(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length) return result;
  // A copy: the stack worth keeping is the original error's, which GraphQLError copies when there is one.
  const frames = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    const errors = result.errors.map((error) => {
      const upstream = new GraphQLError(error.message, { path: error.path, originalError: error.originalError, extensions: error.extensions });
      Object.assign(upstream, { locations: error.locations });
      return upstream;
    });
    return { ...result, errors };
  } finally {
    Error.stackTraceLimit = frames;
  }
}

const hasOperation = (document: DocumentNode, name: string) =>
  document.definitions.some((definition) => definition.kind === Kind.OPERATION_DEFINITION && definition.name?.value === name);
