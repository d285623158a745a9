import { validateSync } from 'class-validator';
import {
  type DocumentNode,
  getOperationAST,
  GraphQLBoolean,
  GraphQLError,
  GraphQLFloat,
  GraphQLID,
  type GraphQLInputObjectType,
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
  Kind,
  TypeInfo,
  typeFromAST,
  type VariableDefinitionNode,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { getMetadataStorage } from 'type-graphql';
import type { FieldErrors } from '../errors/domain-error.js';
import { humanize } from '../errors/humanize.js';
import type { ExternalReference } from '../resources/external-references.js';
import { declaredReferences, lookUpReferences } from '../resources/references.js';
import { Literal, literalValue } from './literal-values.js';
import { DateScalar, DateTimeScalar } from './scalars.js';
import { VALIDATION_SETTINGS } from './validators.js';

/**
 * The one validation pass of an operation's input: what graphql-js's coercion refuses (missing,
 * wrong type, unknown field) and what the input classes' rules refuse (length, format, range, and
 * the rules comparing fields of one input), every field at once, in Laravel's words; when it
 * refuses anything, the related records the well-formed fields name are looked up too, so the same
 * answer names the unknown ones (references.ts). The operation guard runs it before any resolver,
 * for GraphQL clients and REST routes alike, on variables and on literals written in the document.
 */

/** graphql-js stops collecting variable errors at this many; so do we. */
const MAX_PROBLEMS = 50;

/** What a scalar refuses, in Laravel's words. */
const SCALAR_EXPECTATIONS = new Map<GraphQLInputType, string>([
  [GraphQLString, 'must be a string'],
  [GraphQLID, 'must be a string'],
  [GraphQLInt, 'must be an integer'],
  [GraphQLFloat, 'must be a number'],
  [GraphQLBoolean, 'must be true or false'],
  [DateScalar, 'must be a valid date'],
  [DateTimeScalar, 'must be a valid date'],
]);

type Path = readonly (string | number)[];

/** Marks a value its type refused, so no rule judges it again (one message for one mistake). */
const REFUSED = Symbol('refused');

/** The field a problem is reported on: `input.name` as `name`, other variables by name (`where.status`), list positions as Laravel writes them (`items.3.email`). */
function fieldPath(path: Path): string {
  const names = path[0] === 'input' ? path.slice(1) : path;
  return names.join('.');
}

const lastName = (path: Path) => String(path.findLast((key) => typeof key === 'string') ?? path[0]);

/** An input object whose class declares the records it names, as the pass found it. */
interface NamingObject {
  path: Path;
  fieldNames: string[];
  value: Record<string, unknown>;
  references: readonly ExternalReference[];
}

class Problems {
  readonly errors: FieldErrors = {};
  count = 0;
  readonly naming: NamingObject[] = [];

  add(field: string, messages: string[]): void {
    if (this.errors[field] || this.count >= MAX_PROBLEMS) return;
    this.errors[field] = messages;
    this.count++;
  }

  /** Puts the errors of the fields under `prefix` in the order its type declares them (as Laravel lists its rules), whatever found them first. */
  order(prefix: string, fieldNames: string[]): void {
    const start = prefix ? `${prefix}.` : '';
    const rank = (key: string) => {
      const index = fieldNames.indexOf(key.slice(start.length).split('.')[0]!);
      return index === -1 ? fieldNames.length : index;
    };
    const under = Object.keys(this.errors).filter((key) => key.startsWith(start) && key !== prefix);
    const sorted = [...under].sort((a, b) => rank(a) - rank(b));
    if (sorted.every((key, index) => key === under[index])) return;
    for (const key of sorted) {
      const messages = this.errors[key]!;
      delete this.errors[key];
      this.errors[key] = messages;
    }
  }

  /**
   * Adds, for each input naming related records, the fields whose well-formed value names no live
   * row of the tenant (a foreign uuid reads like a missing one); fields already refused are not looked up.
   */
  async addUnknownReferences(em: EntityManager): Promise<void> {
    if (this.count >= MAX_PROBLEMS) return;
    const given = this.naming.map(({ path, value }) =>
      Object.fromEntries(Object.entries(value).filter(([field]) => !this.errors[fieldPath([...path, field])])),
    );
    const lookups = await lookUpReferences(
      em,
      this.naming.map(({ references }, at) => ({ given: given[at]!, references })),
    );
    for (const [at, { errors }] of lookups.entries()) {
      const { path, fieldNames } = this.naming[at]!;
      for (const [field, messages] of Object.entries(errors)) this.add(fieldPath([...path, field]), messages);
      this.order(fieldPath(path), fieldNames);
    }
  }

  /** A value at `path` the type refuses, worded by what the type is rather than by graphql-js's message. */
  refuse(path: Path, kind: { leaf: GraphQLLeafType; value: unknown } | 'object' | 'missing', reason?: string): typeof REFUSED {
    const label = humanize(lastName(path));
    const field = fieldPath(path) || String(path[0]);
    if (kind === 'missing') this.add(field, [`The ${label} field is required.`]);
    else if (kind === 'object') this.add(field, [`The ${label} field must be an object.`]);
    else if (isEnumType(kind.leaf) && typeof kind.value === 'string') this.add(field, [`The selected ${label} is invalid.`]);
    else {
      const expected = SCALAR_EXPECTATIONS.get(kind.leaf);
      this.add(field, [expected ? `The ${label} field ${expected}.` : `The ${label} field is invalid: ${(reason ?? '').replace(/\.$/, '')}.`]);
    }
    return REFUSED;
  }
}

/** The type-graphql class behind each input type, whose class-validator rules the pass runs. */
let inputClasses: Map<string, new () => object> | undefined;
function inputClass(type: GraphQLInputObjectType): (new () => object) | undefined {
  inputClasses ??= new Map(getMetadataStorage().inputTypes.map(({ name, target }) => [name, target as new () => object]));
  return inputClasses.get(type.name);
}

/** The rules of `type`'s class on an object whose fields were coerced; refused fields are left out (they have their message). */
function checkRules(type: GraphQLInputObjectType, coerced: Record<string, unknown>, path: Path, problems: Problems): void {
  const Class = inputClass(type);
  if (!Class) return;
  const references = declaredReferences(Class);
  if (references) problems.naming.push({ path, fieldNames: Object.keys(type.getFields()), value: coerced, references });
  const instance = Object.assign(Object.create(Class.prototype) as object, coerced);
  for (const error of validateSync(instance, VALIDATION_SETTINGS)) {
    // class-validator lists a field's rules bottom-up (decorator order); Laravel reads them as written.
    if (error.constraints) problems.add(fieldPath([...path, error.property]), Object.values(error.constraints).reverse());
  }
}

/** Walks a value as graphql-js coerces it (same checks, same order), then runs each input object's rules; returns the coerced value or REFUSED. */
function check(value: unknown, type: GraphQLInputType, path: Path, problems: Problems): unknown {
  if (problems.count >= MAX_PROBLEMS) return REFUSED;
  if (isNonNullType(type)) {
    if (value != null) return check(value, type.ofType, path, problems);
    return problems.refuse(path, 'missing');
  }
  if (value == null) return value;
  if (isListType(type)) {
    if (typeof value === 'object' && Symbol.iterator in value)
      return [...(value as Iterable<unknown>)].map((item, index) => check(item, type.ofType, [...path, index], problems));
    return [check(value, type.ofType, path, problems)];
  }
  if (isInputObjectType(type)) return checkObject(value, type, path, problems);
  return checkLeaf(value, type, path, problems);
}

function checkObject(value: unknown, type: GraphQLInputObjectType, path: Path, problems: Problems): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return problems.refuse(path, 'object');
  const fields = type.getFields();
  const object = value as Record<string, unknown>;
  const coerced: Record<string, unknown> = {};
  let refused = false;
  for (const field of Object.values(fields)) {
    const fieldValue = object[field.name];
    const result =
      fieldValue !== undefined
        ? check(fieldValue, field.type, [...path, field.name], problems)
        : field.defaultValue === undefined && isNonNullType(field.type)
          ? problems.refuse([...path, field.name], 'missing')
          : field.defaultValue;
    if (result === REFUSED) refused = true;
    else if (result !== undefined) coerced[field.name] = result;
  }
  for (const key of Object.keys(object)) {
    if (!fields[key]) problems.add(fieldPath([...path, key]), [`The ${humanize(key)} field is not accepted here.`]);
  }
  checkRules(type, coerced, path, problems);
  problems.order(fieldPath(path), Object.keys(fields));
  return refused ? REFUSED : coerced;
}

function checkLeaf(value: unknown, type: GraphQLLeafType, path: Path, problems: Problems): unknown {
  if (value instanceof Literal) return value.refusal === undefined ? value.parsed : problems.refuse(path, { leaf: type, value: value.written }, value.refusal);
  let parsed: unknown;
  try {
    parsed = type.parseValue(value);
  } catch (error) {
    const reason = error instanceof GraphQLError ? error.message : `Expected type "${type.name}". ${(error as Error).message}`;
    return problems.refuse(path, { leaf: type, value }, reason);
  }
  return parsed === undefined ? problems.refuse(path, { leaf: type, value }, `Expected type "${type.name}".`) : parsed;
}

/** Documents whose arguments write an input object inline (`createStudent(input: {…})`): their rules run too. */
const inlineObjects = new WeakMap<DocumentNode, boolean>();
function hasInlineObjects(document: DocumentNode): boolean {
  let found = inlineObjects.get(document);
  if (found === undefined) {
    found = false;
    visit(document, {
      ObjectValue() {
        found = true;
      },
    });
    inlineObjects.set(document, found);
  }
  return found;
}

/** Values written in the document (arguments of fields and directives, variable defaults), read as graphql-js reads them, named by argument or variable. */
function checkLiterals(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown>, problems: Problems): void {
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      VariableDefinition(node) {
        const type = typeInfo.getInputType();
        if (node.defaultValue && type) check(literalValue(node.defaultValue, type, {}), type, [node.variable.name.value], problems);
      },
      Argument(node) {
        const type = typeInfo.getInputType();
        if (node.value.kind !== Kind.VARIABLE && type) check(literalValue(node.value, type, variables), type, [node.name.value], problems);
      },
    }),
  );
}

/**
 * Which literals the pass reads: those of documents writing an input object inline (graphql-js has
 * checked the rest, and only input objects have rules), or all of them (a document graphql-js refused
 * for its literals, whose every field error the answer names).
 */
export type LiteralsRead = 'objects' | 'all';

function collect(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName: string | null | undefined,
  literals: LiteralsRead,
): { problems: Problems; definitions: VariableDefinitionNode[] } {
  const problems = new Problems();
  const definitions: VariableDefinitionNode[] = [];
  for (const definition of getOperationAST(document, operationName)?.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type);
    if (!type || !isInputType(type) || !variables || !Object.hasOwn(variables, name)) continue;
    const before = problems.count;
    check(variables[name], type, [name], problems);
    if (problems.count > before) definitions.push(definition);
  }
  if (literals === 'all' || hasInlineObjects(document)) checkLiterals(schema, document, variables ?? {}, problems);
  return { problems, definitions };
}

/**
 * Every field error of an operation's input (Laravel-worded), before graphql-js coerces the
 * variables: the same refusals, found by walking the variable types, plus the input rules. A
 * variable that is absent is left to graphql-js (its default, or its own error).
 */
export function variableFieldErrors(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName?: string | null,
  literals: LiteralsRead = 'objects',
): { errors: FieldErrors; definitions: VariableDefinitionNode[] } | undefined {
  const { problems, definitions } = collect(schema, document, variables, operationName, literals);
  return problems.count > 0 ? { errors: problems.errors, definitions } : undefined;
}

/**
 * `variableFieldErrors` of a request, in its tenant: when the input has field errors, the related
 * records its well-formed fields name are looked up too, and the unknown ones join the same answer.
 */
export async function operationFieldErrors(
  em: EntityManager,
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName: string | null | undefined,
  literals: LiteralsRead,
): Promise<{ errors: FieldErrors; definitions: VariableDefinitionNode[] } | undefined> {
  const { problems, definitions } = collect(schema, document, variables, operationName, literals);
  if (problems.count === 0) return undefined;
  await problems.addUnknownReferences(em);
  return { errors: problems.errors, definitions };
}

/** Every field error of one input value of `type` (a batch item, say), keyed by field as `variableFieldErrors` keys them. */
export function inputFieldErrors(type: GraphQLInputType, value: unknown): FieldErrors | undefined {
  const problems = new Problems();
  check(value, type, [], problems);
  return problems.count > 0 ? problems.errors : undefined;
}
