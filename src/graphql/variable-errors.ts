import {
  type DocumentNode,
  getOperationAST,
  GraphQLBoolean,
  GraphQLError,
  GraphQLFloat,
  GraphQLID,
  type GraphQLInputType,
  GraphQLInt,
  type GraphQLLeafType,
  type GraphQLSchema,
  GraphQLString,
  isEnumType,
  isInputObjectType,
  isInputType,
  isListType,
  isNonNullType,
  typeFromAST,
  type VariableDefinitionNode,
} from 'graphql';
import type { FieldErrors } from '../errors/domain-error.js';
import { humanize } from '../errors/humanize.js';

/** graphql-js stops collecting variable errors at this many; so do we. */
const MAX_PROBLEMS = 50;

/** What a built-in scalar refuses, in Laravel's words. */
const SCALAR_EXPECTATIONS = new Map<GraphQLInputType, string>([
  [GraphQLString, 'must be a string'],
  [GraphQLID, 'must be a string'],
  [GraphQLInt, 'must be an integer'],
  [GraphQLFloat, 'must be a number'],
  [GraphQLBoolean, 'must be true or false'],
]);

type Path = readonly (string | number)[];

/** The field a problem is reported on: `input.name` as `name`, other variables by name (`where.status`), list positions as Laravel writes them (`inputs.3.studentUuid`). */
function fieldPath(path: Path): string[] {
  const names = path.map(String);
  if (names[0] === 'input') names.shift();
  return names;
}

class Problems {
  readonly errors: FieldErrors = {};
  count = 0;

  add(field: string, message: string): void {
    this.errors[field] = [message];
    this.count++;
  }

  /** A value at `path` the type refuses, worded by what the type is rather than by graphql-js's message. */
  refuse(path: Path, kind: { leaf: GraphQLLeafType; value: unknown } | 'object' | undefined, reason: string): void {
    const names = fieldPath(path);
    const label = humanize(names.findLast((name) => !/^\d+$/.test(name)) ?? String(path[0]));
    const field = names.join('.') || String(path[0]);
    if (kind === 'object') return this.add(field, `The ${label} must be an object.`);
    if (kind && isEnumType(kind.leaf) && typeof kind.value === 'string') return this.add(field, `The selected ${label} is invalid.`);
    const expected = kind && SCALAR_EXPECTATIONS.get(kind.leaf);
    this.add(field, expected ? `The ${label} ${expected}.` : `The ${label} is invalid: ${reason.replace(/\.$/, '')}.`);
  }
}

/** Walks a value as graphql-js coerces it (same checks, same order), reporting each refusal with its structured path. */
function check(value: unknown, type: GraphQLInputType, path: Path, problems: Problems): void {
  if (problems.count >= MAX_PROBLEMS) return;
  if (isNonNullType(type)) {
    if (value != null) return check(value, type.ofType, path, problems);
    return problems.refuse(path, undefined, `Expected non-nullable type "${String(type)}" not to be null.`);
  }
  if (value == null) return;
  if (isListType(type)) {
    if (typeof value === 'object' && Symbol.iterator in value)
      [...(value as Iterable<unknown>)].forEach((item, index) => check(item, type.ofType, [...path, index], problems));
    else check(value, type.ofType, path, problems);
    return;
  }
  if (isInputObjectType(type)) {
    if (typeof value !== 'object') return problems.refuse(path, 'object', `Expected type "${type.name}" to be an object.`);
    const fields = type.getFields();
    const object = value as Record<string, unknown>;
    for (const field of Object.values(fields)) {
      const fieldValue = object[field.name];
      if (fieldValue !== undefined) check(fieldValue, field.type, [...path, field.name], problems);
      else if (field.defaultValue === undefined && isNonNullType(field.type)) {
        problems.add([...fieldPath(path), field.name].join('.'), `The ${humanize(field.name)} field is required.`);
      }
    }
    for (const key of Object.keys(object)) {
      if (!fields[key]) problems.add([...fieldPath(path), key].join('.'), `The ${humanize(key)} field is not accepted here.`);
    }
    return;
  }
  checkLeaf(value, type, path, problems);
}

function checkLeaf(value: unknown, type: GraphQLLeafType, path: Path, problems: Problems): void {
  let parsed: unknown;
  try {
    parsed = type.parseValue(value);
  } catch (error) {
    const reason = error instanceof GraphQLError ? error.message : `Expected type "${type.name}". ${(error as Error).message}`;
    return problems.refuse(path, { leaf: type, value }, reason);
  }
  if (parsed === undefined) problems.refuse(path, { leaf: type, value }, `Expected type "${type.name}".`);
}

/**
 * The variables an operation cannot take, per input field (Laravel-worded), before graphql-js
 * coerces them: the same refusals, found by walking the variable types instead of reading
 * graphql-js's messages. A variable that is absent is left to graphql-js (its default, or its own error).
 */
export function variableFieldErrors(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName?: string | null,
): { errors: FieldErrors; definitions: VariableDefinitionNode[] } | undefined {
  const problems = new Problems();
  const definitions: VariableDefinitionNode[] = [];
  for (const definition of getOperationAST(document, operationName)?.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type);
    if (!type || !isInputType(type) || !variables || !Object.hasOwn(variables, name)) continue;
    const before = problems.count;
    const value = variables[name];
    if (value === null && isNonNullType(type)) problems.add(name, `The ${humanize(name)} field is required.`);
    else check(value, type, [name], problems);
    if (problems.count > before) definitions.push(definition);
  }
  return problems.count > 0 ? { errors: problems.errors, definitions } : undefined;
}
