import type { Request } from 'express';
import { getNamedType, GraphQLBoolean, GraphQLFloat, GraphQLInputObjectType, GraphQLInt, type GraphQLSchema } from 'graphql';
import { invalid } from '../src/errors/domain-error.js';
import { decodeCursor, DEFAULT_PAGE_SIZE, encodeKeyCursor, encodePosition, MAX_CURSOR_POSITION, MAX_PAGE_SIZE } from '../src/db/paging.js';
import { toCamel } from '../src/identifier-case.js';

export interface ListParams {
  variables: { where?: Record<string, unknown>; sort?: { column: string; order?: string }; first: number; after?: string };
  page: number;
  perPage: number;
}

type Query = Request['query'];

function positiveInteger(raw: unknown, field: string, fallback: number, max?: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(value) || value < 1) throw invalid({ [field]: [`The ${field.replace('_', ' ')} field must be an integer of at least 1.`] });
  if (max !== undefined && value > max) throw invalid({ [field]: [`The ${field.replace('_', ' ')} field must not be greater than ${max}.`] });
  return value;
}

/** `where[a][b]=x` → [['a.b', 'x']]; aliases rename legacy paths (`user.email` → `email`). */
function flatten(value: unknown, prefix = ''): [string, unknown][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [[prefix, value]];
  return Object.entries(value).flatMap(([key, item]) => flatten(item, prefix ? `${prefix}.${key}` : key));
}

/** A query-string value typed the way the where input field expects it; GraphQL rejects what stays wrong. */
function typedValue(raw: unknown, inputType: GraphQLInputObjectType, field: string): unknown {
  if (raw === 'null') return null;
  const type = inputType.getFields()[field] ? getNamedType(inputType.getFields()[field]!.type) : undefined;
  if (typeof raw !== 'string' || !type) return raw;
  if (type === GraphQLBoolean) return raw === 'true' || raw === '1' ? true : raw === 'false' || raw === '0' ? false : raw;
  if ((type === GraphQLInt || type === GraphQLFloat) && raw.trim() !== '' && !Number.isNaN(Number(raw))) return Number(raw);
  return raw;
}

/** The input object type of a root field's argument (e.g. `institutions(where:)` → InstitutionWhere). */
export function argumentInputType(schema: GraphQLSchema, root: 'query' | 'mutation', field: string, argument: string): GraphQLInputObjectType {
  const type = root === 'query' ? schema.getQueryType() : schema.getMutationType();
  const arg = type?.getFields()[field]?.args.find((candidate) => candidate.name === argument);
  const named = arg && getNamedType(arg.type);
  if (!(named instanceof GraphQLInputObjectType)) throw new Error(`${root} ${field}(${argument}:) is not an input object`);
  return named;
}

export function whereVariables(query: Query, whereType: GraphQLInputObjectType, aliases: Record<string, string> = {}): Record<string, unknown> | undefined {
  if (query.where === undefined) return undefined;
  if (typeof query.where !== 'object' || Array.isArray(query.where)) throw invalid({ where: ['The where parameter must be written where[field]=value.'] });
  const where: Record<string, unknown> = {};
  for (const [path, raw] of flatten(query.where)) {
    const field = aliases[path] ?? path.split('.').map(toCamel).join('.');
    where[field] = typedValue(raw, whereType, field);
  }
  return where;
}

export function sortVariables(query: Query): ListParams['variables']['sort'] {
  if (query.sort === undefined) return undefined;
  const sort = query.sort as Record<string, unknown>;
  if (typeof sort !== 'object' || typeof sort.column !== 'string') throw invalid({ 'sort.column': ['The sort column field is required when sorting.'] });
  const order = typeof sort.order === 'string' ? sort.order.toLowerCase() : undefined;
  return { column: sort.column, ...(order ? { order } : {}) };
}

/** `includes[relation]=1` → the set of relations to embed in full; unknown names are a 422. */
export function includedRelations(query: Query, allowed: readonly string[]): Set<string> {
  const raw = query.includes;
  if (raw === undefined) return new Set();
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalid({ includes: ['The includes parameter must be written includes[relation]=1.'] });
  const requested = Object.entries(raw)
    .filter(([, value]) => value === '1' || value === 'true')
    .map(([name]) => name);
  const unknown = requested.filter((name) => !allowed.includes(name));
  if (unknown.length > 0) {
    const choices = allowed.length ? allowed.join(', ') : 'none';
    throw invalid({ includes: [`Unknown relation(s) ${unknown.join(', ')}; this resource can include: ${choices}.`] });
  }
  return new Set(requested);
}

/** How a REST list pages: by page number (Laravel's paginator), or by `cursor` (its cursor paginator). */
export interface RestPaging {
  page: number;
  perPage: number;
  /** Whether the request pages by `cursor` (`cursor=` with no value starts at the list's head). */
  cursor: boolean;
}

/** The connection's paging arguments for a REST list. */
export type PagingVariables = { first: number; after?: string } | { last: number; before: string };

/**
 * page/per_page or cursor/per_page as the connection's first/after (or last/before for a cursor
 * that points backwards, from `links.prev`). A page number travels as a position cursor.
 */
export function listPaging(query: Query): { paging: RestPaging; variables: PagingVariables } {
  const perPage = positiveInteger(query.per_page, 'per_page', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  if (query.cursor !== undefined) {
    if (query.page !== undefined) throw invalid({ cursor: ['The cursor field is prohibited when page is present.'] });
    if (typeof query.cursor !== 'string') throw invalid({ cursor: ['The cursor must be a string from links.next or links.prev.'] });
    const paging = { page: 1, perPage, cursor: true };
    if (query.cursor === '') return { paging, variables: { first: perPage } };
    const cursor = decodeCursor(query.cursor);
    if (cursor?.kind !== 'key') throw invalid({ cursor: ['The cursor is invalid.'] });
    const edge = encodeKeyCursor(cursor.key);
    return { paging, variables: cursor.backward ? { last: perPage, before: edge } : { first: perPage, after: edge } };
  }
  // The page's offset must stay a position a cursor can name.
  const page = positiveInteger(query.page, 'page', 1, Math.floor(MAX_CURSOR_POSITION / perPage));
  const offset = (page - 1) * perPage;
  return { paging: { page, perPage, cursor: false }, variables: { first: perPage, ...(offset > 0 ? { after: encodePosition(offset - 1) } : {}) } };
}
