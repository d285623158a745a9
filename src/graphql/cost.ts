import {
  type DocumentNode,
  getNamedType,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  type GraphQLSchema,
  isLeafType,
  Kind,
  type OperationDefinitionNode,
  type TypeNode,
} from 'graphql';
// The CommonJS build: it shares the CommonJS `graphql` the service loads (the ESM build imports graphql's .mjs twin).
import { type ComplexityEstimatorArgs, getComplexity } from 'graphql-query-complexity/cjs';
import { DEFAULT_PAGE_SIZE } from '../db/paging.js';

/**
 * What an operation may cost: the rows it can make the service load, where a field with `first:`
 * multiplies what is selected below it (students(first: 100) { enrollments(first: 100) { … } } is
 * 10,000 enrollments). Scalars are free; every object a field resolves to counts one.
 */
function rowEstimator({ field, args, childComplexity }: ComplexityEstimatorArgs): number {
  if (isLeafType(getNamedType(field.type))) return 0;
  const paginated = field.args.some((arg) => arg.name === 'first');
  const rows = paginated ? (typeof args.first === 'number' ? Math.max(args.first, 0) : DEFAULT_PAGE_SIZE) : 1;
  return rows * (1 + childComplexity);
}

/** Fields counted before the estimate stops: a fragment spread many times over expands past it. */
const MAX_QUERY_NODES = 10_000;

/** Costs by document (Apollo and the REST layer both reuse parsed documents), then by the variables that can change it. */
const costs = new WeakMap<DocumentNode, Map<string, number>>();
const MAX_COSTS_PER_DOCUMENT = 100;

/** Only `first:` values (Int) and `@skip`/`@include` conditions (Boolean) change what an operation costs. */
function costKey(operation: OperationDefinitionNode, variables: Record<string, unknown> | undefined): string {
  const relevant = (operation.variableDefinitions ?? []).filter((definition) => /^(Int|Boolean)$/.test(namedTypeOf(definition.type)));
  return JSON.stringify([operation.name?.value, ...relevant.map((definition) => variables?.[definition.variable.name.value] ?? null)]);
}

const namedTypeOf = (type: TypeNode): string => (type.kind === Kind.NAMED_TYPE ? type.name.value : namedTypeOf(type.type));

function computeCost(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> | undefined, operationName?: string | null): number {
  try {
    return getComplexity({
      schema,
      query: document,
      variables,
      operationName: operationName ?? undefined,
      estimators: [rowEstimator],
      maxQueryNodes: MAX_QUERY_NODES,
    });
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName?: string | null,
): number | undefined {
  const operation = getOperationAST(document, operationName);
  if (!operation) return undefined;
  let known = costs.get(document);
  if (!known) costs.set(document, (known = new Map()));
  const key = costKey(operation, variables);
  const cached = known.get(key);
  if (cached !== undefined) return cached;
  // Invalid variables are answered by execution, which coerces them before any resolver runs.
  if (getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {}).errors) return undefined;
  const cost = computeCost(schema, document, variables, operationName);
  if (known.size < MAX_COSTS_PER_DOCUMENT) known.set(key, cost);
  return cost;
}

const count = (value: number) => (Number.isFinite(value) ? value.toLocaleString('en-US') : 'too many');

/** Refuses an operation above `maxCost` before it runs: GraphQL clients and the REST layer alike. */
export function assertAffordable(
  maxCost: number,
  schema: GraphQLSchema,
  document: DocumentNode,
  variables?: Record<string, unknown>,
  operationName?: string | null,
): void {
  const cost = operationCost(schema, document, variables, operationName);
  if (cost === undefined || cost <= maxCost) return;
  throw new GraphQLError(
    `The query is too expensive: it may load ${count(cost)} rows, the limit is ${count(maxCost)}. Ask for fewer rows with first: or nest fewer lists.`,
    { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', cost: Number.isFinite(cost) ? cost : null, maxCost, http: { status: 400 } } },
  );
}
