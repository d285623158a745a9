import { GraphQLBoolean, GraphQLFloat, GraphQLID, GraphQLInt, GraphQLString, type GraphQLScalarType } from 'graphql';
import { type ClassType, Field, Float, getMetadataStorage, ID, InputType, Int } from 'type-graphql';
import { humanize } from '../errors/humanize.js';
import { toCamel } from '../identifier-case.js';
import { DateTimeScalar } from './scalars.js';

/*
 * Filter operators on list fields (`where: { createdAt: { gte: … } }`, REST `where[created_at][gte]`).
 * A field that already filtered by equality (`status: issued`) keeps that scalar and takes its
 * operators under `<field>Is` (`statusIs: { in: [issued, revoked] }`): GraphQL cannot give one input
 * field both a scalar and an object type. db/filters.ts turns the operators into the ORM's.
 */

/** What every operator input object holds (db/filters.ts reads them as plain objects). */
abstract class FieldFilter {
  eq?: unknown;
  ne?: unknown;
  gt?: unknown;
  gte?: unknown;
  lt?: unknown;
  lte?: unknown;
  in?: unknown[];
  null?: boolean;
  contains?: string;
}

/** The operators each kind of value takes: ranges only where values are ordered, `contains` only on text. */
export const OPERATORS = {
  text: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'null', 'contains'],
  ordered: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'null'],
  choice: ['eq', 'ne', 'in', 'null'],
} as const;

type Kind = keyof typeof OPERATORS;
type ValueType = GraphQLScalarType | object;

const OPERATOR_TEXT: Record<string, string> = {
  eq: 'Equal to this.',
  ne: 'Not equal to this (rows without a value are not matched; add `null`).',
  gt: 'Greater than this.',
  gte: 'Greater than or equal to this.',
  lt: 'Less than this.',
  lte: 'Less than or equal to this.',
  in: 'Equal to one of these (at most 100).',
  null: '`true`: only rows without a value; `false`: only rows with one.',
  contains: 'Contains this text, ignoring case (`%` and `_` match themselves).',
};

const filterTypes = new Map<ValueType, ClassType<FieldFilter>>();

/** `<Type>Filter`: the operators of one value type, made once per type. */
function filterType(type: ValueType, typeName: string, kind: Kind): ClassType<FieldFilter> {
  let made = filterTypes.get(type);
  if (made) return made;
  @InputType(`${typeName}Filter`, { description: `Operators on a ${typeName} field; all given must hold.` })
  class Operators extends FieldFilter {}
  for (const operator of OPERATORS[kind]) {
    const valueType = operator === 'null' ? Boolean : operator === 'contains' ? String : type;
    Field(() => (operator === 'in' ? [valueType] : valueType), { nullable: true, description: OPERATOR_TEXT[operator] })(Operators.prototype, operator);
  }
  filterTypes.set(type, (made = Operators));
  return made;
}

/**
 * `Date` and the other built-in constructors by name too: a field declared in a module evaluated in
 * another realm (jest runs modules in a vm context) names that realm's `Date`, which is not this one.
 */
const isBuiltin = (type: unknown, builtin: DateConstructor | StringConstructor | NumberConstructor | BooleanConstructor) =>
  type === builtin || (typeof type === 'function' && type.name === builtin.name && type.toString().includes('[native code]'));

/**
 * A built-in scalar (`Int`, `Float`, `ID`) by name too, like `isBuiltin`: under jest an entity's
 * `@Field(() => Int)` may name another module instance's scalar, so its field took no filter in tests
 * alone (IntFilter and FloatFilter were missing from the schema the tests built).
 */
const isScalar = (type: unknown, scalar: GraphQLScalarType, builtin: GraphQLScalarType) =>
  type === scalar ||
  type === builtin ||
  (typeof type === 'object' && type !== null && (type as { name?: unknown }).name === builtin.name && 'serialize' in type);

/** The filter input and operator kind of a GraphQL field type (a type-graphql `getType()` result), or undefined when it takes none. */
function filterOf(type: unknown): ClassType<FieldFilter> | undefined {
  if (isBuiltin(type, String) || type === GraphQLString) return filterType(GraphQLString, 'String', 'text');
  if (isBuiltin(type, Date) || type === DateTimeScalar) return filterType(Date, 'DateTime', 'ordered');
  if (isScalar(type, Int, GraphQLInt)) return filterType(Int, 'Int', 'ordered');
  if (isBuiltin(type, Number) || isScalar(type, Float, GraphQLFloat)) return filterType(Float, 'Float', 'ordered');
  if (isScalar(type, ID, GraphQLID)) return filterType(ID, 'ID', 'choice');
  if (isBuiltin(type, Boolean) || type === GraphQLBoolean) return filterType(Boolean, 'Boolean', 'choice');
  const enumType = getMetadataStorage().enums.find((candidate) => candidate.enumObj === type);
  return enumType ? filterType(type as object, enumType.name, 'choice') : undefined;
}

/** The GraphQL fields a class declares, its ancestors' included (an entity's `createdAt` comes from its base). */
function fieldsOf(target: ClassType<object>) {
  const fields = getMetadataStorage().fields;
  const found = new Map<string, (typeof fields)[number]>();
  for (let type: unknown = target; typeof type === 'function' && type !== Function.prototype; type = Object.getPrototypeOf(type)) {
    for (const field of fields) if (field.target === type && !found.has(field.name)) found.set(field.name, field);
  }
  return found;
}

const pending: { where: ClassType<object>; nodeTypeName: string; columns: readonly string[] }[] = [];
const done = new WeakSet<object>();

/** Registers a where input for its operator fields, added once every type is declared (`applyFilterOperators`). */
export function withFilterOperators(where: ClassType<object>, nodeTypeName: string, columns: readonly string[]): void {
  pending.push({ where, nodeTypeName, columns });
}

/** Adds the registered operator fields; the schema builder calls it before building. */
export function applyFilterOperators(): void {
  for (const { where, nodeTypeName, columns } of pending.splice(0)) addFilterOperators(where, nodeTypeName, columns);
}

/**
 * Adds the operator fields to a where input: one for each equality field it has (`<field>Is`) and one
 * for each sort column of the node type (`createdAt`), `updatedAt` always (a sync asks what changed since).
 */
function addFilterOperators(where: ClassType<object>, nodeTypeName: string, columns: readonly string[]): void {
  if (done.has(where)) return;
  done.add(where);
  const targets = new Set<string>();
  const own = fieldsOf(where);
  const nodeType = getMetadataStorage().objectTypes.find((type) => type.name === nodeTypeName);
  const nodeFields = nodeType ? fieldsOf(nodeType.target as ClassType<object>) : new Map();
  const add = (name: string, target: string, type: unknown) => {
    const filter = filterOf(type);
    if (!filter || own.has(name) || targets.has(name)) return;
    targets.add(name);
    Field(() => filter, { nullable: true, description: `Operators on ${humanize(target)}.` })(where.prototype, name);
  };
  for (const [name, field] of own) add(`${name}Is`, name, field.getType());
  for (const column of new Set([...columns, 'updated_at'])) {
    const name = toCamel(column);
    const field = nodeFields.get(name);
    if (field && !own.has(name)) add(name, name, field.getType());
  }
}
