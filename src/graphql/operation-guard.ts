import { type ASTNode, type DocumentNode, GraphQLError, type GraphQLSchema, Kind, validate, ValuesOfCorrectTypeRule, visit } from 'graphql';
import type { RequestContext } from '../context/request-context.js';
import { type FieldErrors, invalid, summarize } from '../errors/domain-error.js';
import { assertAffordable } from './cost.js';
import { humanize } from '../errors/humanize.js';
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

/**
 * Text the service refuses in any input: NUL (PostgreSQL text cannot hold it) and UTF-16 surrogates
 * without their pair (not Unicode; encoders replace or reject them). Matched on code units, no `u` flag.
 */
const UNSAFE_TEXT = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const isSafeText = (value: string): boolean => !UNSAFE_TEXT.test(value);

/** A key fit to be echoed in an error: its unsafe characters shown as U+FFFD. */
const printable = (key: string) => key.replace(new RegExp(UNSAFE_TEXT.source, 'g'), '\uFFFD');

/** Reported fields a request at most: one bad field is enough to answer, a thousand would bloat the answer. */
const MAX_REPORTED = 20;

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/** "input.name" reports as "name", as the other input errors do; list positions are dropped. */
function fieldName(path: string[]): string {
  const named = path[0] === 'input' ? path.slice(1) : path;
  return named.map(printable).join('.') || 'input';
}

function report(errors: FieldErrors, path: string[]): void {
  const field = fieldName(path);
  errors[field] ??= [`The ${humanize(printable(path.at(-1) ?? 'input'))} may not contain NUL characters or unpaired UTF-16 surrogates.`];
}

/** Every string and object key of the variables, iteratively (their depth is the client's to choose). */
function scanValues(variables: Record<string, unknown>, errors: FieldErrors): void {
  const pending: [unknown, string[]][] = [[variables, []]];
  while (pending.length > 0 && Object.keys(errors).length < MAX_REPORTED) {
    const [value, path] = pending.pop()!;
    if (typeof value === 'string') {
      if (!isSafeText(value)) report(errors, path);
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push([item, path]);
    } else if (isPlainObject(value)) {
      for (const [key, item] of Object.entries(value)) {
        if (!isSafeText(key)) report(errors, [...path, key]);
        else pending.push([item, [...path, key]]);
      }
    }
  }
}

/** What a document's own literals hold never changes: Apollo and the REST layer reuse parsed documents. */
const literalErrors = new WeakMap<DocumentNode, FieldErrors>();

function scanLiterals(document: DocumentNode, errors: FieldErrors): void {
  let found = literalErrors.get(document);
  if (!found) literalErrors.set(document, (found = unsafeLiterals(document)));
  Object.assign(errors, found);
}

/** String literals written into the document itself, named by the argument or input field holding them. */
function unsafeLiterals(document: DocumentNode): FieldErrors {
  const errors: FieldErrors = {};
  visit(document, {
    StringValue(node, _key, parent, _path, ancestors) {
      if (isSafeText(node.value)) return;
      const names = ([...ancestors, parent] as ASTNode[]).flatMap((ancestor) =>
        ancestor && 'kind' in ancestor && (ancestor.kind === Kind.ARGUMENT || ancestor.kind === Kind.OBJECT_FIELD) ? [ancestor.name.value] : [],
      );
      report(errors, names);
    },
  });
  return errors;
}

/** Per-field errors for unsafe text anywhere in an operation's input, or undefined when all is clean. */
export function unsafeTextErrors(variables: Record<string, unknown> | undefined, document?: DocumentNode): FieldErrors | undefined {
  const errors: FieldErrors = {};
  scanValues(variables ?? {}, errors);
  if (document) scanLiterals(document, errors);
  return Object.keys(errors).length > 0 ? errors : undefined;
}
