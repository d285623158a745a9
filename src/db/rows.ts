import { type EntityClass, type EntityMetadata, type EntityProperty, DecimalType, type Reference, ReferenceKind } from '@mikro-orm/core';
import type { EntityManager, QueryBuilder } from '@mikro-orm/postgresql';
import { sqlRows } from './sql-rows.js';
import { isTenantScoped, type TenantScope, tenantScopeOf } from './tenant-scope.js';

/*
 * Display reads: rows as plain objects (no managed entity), read by the query builder or as JSON by the
 * few hand-written statements (by uuid here, a page in db/page-statement.ts), each scoped by `tenantScopeOf`.
 */

/**
 * A row read for display: the entity's properties with JS types (MikroORM maps names and converts
 * values), but no managed entity behind it — nothing is created, tracked or snapshotted, which is
 * most of the cost of reading a page. Relations hold the related row's uuid instead of a reference.
 * Rows carry the entity's prototype (without running its constructor), so `instanceof` holds and
 * Type-GraphQL passes them to field resolvers as they are instead of copying each into a new instance.
 */
export type Row<T> = { [K in keyof T]: RowValue<T[K]> };

/** A many-to-one on a read row: the related row's uuid (null stays null). */
type RowValue<V> = V extends Reference<object> ? string : V;

/** An entity or its read row: what a GraphQL field resolver receives as its parent. */
export type Readable<T> = T | Row<T>;

const decimalsByEntity = new WeakMap<object, string[]>();

function numericDecimals(em: EntityManager, entity: EntityClass<object>): string[] {
  let names = decimalsByEntity.get(entity);
  if (!names) {
    const meta = em.getMetadata().get(entity);
    names = meta.props.filter((prop) => prop.customType instanceof DecimalType && prop.customType.mode === 'number').map((prop) => prop.name);
    decimalsByEntity.set(entity, names);
  }
  return names;
}

/** Runs a select query builder and returns plain rows (see `Row`). */
export async function readRows<T extends object>(em: EntityManager, entity: EntityClass<T>, query: QueryBuilder<T>): Promise<Row<T>[]> {
  const rows = (await query.execute('all', true)) as unknown as Record<string, unknown>[];
  const decimals = numericDecimals(em, entity as EntityClass<object>);
  const prototype = (entity as unknown as { prototype: object }).prototype;
  return rows.map((row) => {
    for (const name of decimals) if (row[name] != null) row[name] = Number(row[name]);
    return Object.assign(Object.create(prototype), row) as Row<T>;
  });
}

/*
 * Columns that can be large (a template's free JSON `design_config`) are `lazy` on their entity: the
 * ORM leaves them out of its selects unless populated, and so does every display read here (page
 * statements, loaders, lookups by uuid). A field that shows one reads it on its own, after charging
 * its stored size to the answer's budget (context/response-budget.ts): a page of rows never brings
 * megabytes along unasked, and an answer over budget is refused before the bytes are read.
 */

const lazyByEntity = new WeakMap<object, EntityProperty<object>[]>();

function lazyColumns(em: EntityManager, entity: EntityClass<object>): EntityProperty<object>[] {
  let lazy = lazyByEntity.get(entity);
  if (!lazy) {
    lazy = (em.getMetadata().get(entity) as EntityMetadata<object>).props.filter((prop) => prop.lazy && prop.fieldNames?.length === 1 && !prop.formula);
    lazyByEntity.set(entity, lazy);
  }
  return lazy;
}

/** The columns of `entity`'s table a display row reads: every one but the lazy ones. */
function readColumns(em: EntityManager, entity: EntityClass<object>): string[] {
  const meta = em.getMetadata().get(entity) as EntityMetadata<object>;
  return meta.props.filter((prop) => prop.fieldNames?.length && !prop.lazy && !prop.formula && prop.persist !== false).flatMap((prop) => prop.fieldNames);
}

/**
 * SQL for the row under `alias` as `json`, as `row_to_json(alias)` gives it but without lazy columns
 * (null when the alias matched no row, as `row_to_json` of an outer join's missing row is).
 */
export function rowJsonSql(em: EntityManager, entity: EntityClass<object>, alias: string): string {
  if (lazyColumns(em, entity).length === 0) return `row_to_json(${alias})`;
  const quote = (name: string) => em.getPlatform().quoteIdentifier(name);
  const pairs = readColumns(em, entity).map((column) => `'${column}', ${alias}.${quote(column)}`);
  const uuid = (em.getMetadata().get(entity).properties as Record<string, { fieldNames: string[] }>)['uuid']!.fieldNames[0]!;
  return `(case when ${alias}.${quote(uuid)} is not null then json_build_object(${pairs.join(', ')}) end)`;
}

/** What a query builder selects for a display row: `*`, or every property but the lazy ones. */
export function readFields(em: EntityManager, entity: EntityClass<object>): string[] {
  if (lazyColumns(em, entity).length === 0) return ['*'];
  const meta = em.getMetadata().get(entity) as EntityMetadata<object>;
  return meta.props.filter((prop) => prop.fieldNames?.length && !prop.lazy && !prop.formula && prop.persist !== false).map((prop) => prop.name);
}

/**
 * One lazy column of rows by uuid as JSON text (null where the column is), in the EntityManager's
 * tenant, deleted rows too (as the loaders read rows), committed state (the loaders' EntityManager is
 * never inside a write's transaction). Its caller has charged the stored sizes.
 */
export async function readLazyJson(em: EntityManager, entity: EntityClass<object>, property: string, uuids: string[]): Promise<Map<string, string | null>> {
  const meta = em.getMetadata().get(entity) as EntityMetadata<object>;
  const quote = (name: string) => em.getPlatform().quoteIdentifier(name);
  const column = (name: string) => `t.${quote((meta.properties as Record<string, { fieldNames: string[] }>)[name]!.fieldNames[0]!)}`;
  const scope = tenantScopeOf(em, entity, { live: false });
  const conditions = [`${column('uuid')} = any($1::uuid[])`, ...scope.conditions('t', 2)];
  const text = `select ${column('uuid')} as uuid, ${column(property)}::text as json from ${quote(meta.tableName)} t where ${conditions.join(' and ')}`;
  const rows = await sqlRows<{ uuid: string; json: string | null }>(em, text, [uuids, ...scope.values]);
  return new Map(rows.map(({ uuid, json }) => [uuid, json]));
}

/** What one entity's part of a combined read asks for. */
export interface RowRequest {
  entity: EntityClass<object>;
  uuids: string[];
}

const safeByEntity = new WeakMap<object, boolean>();

/**
 * Whether an entity's rows survive the trip through `row_to_json` unchanged once the ORM maps them:
 * not binary, 64-bit integers or decimals kept as strings (JSON would turn them into other types).
 */
export function readableAsJson(em: EntityManager, entity: EntityClass<object>): boolean {
  let safe = safeByEntity.get(entity);
  if (safe === undefined) {
    const meta = em.getMetadata().get(entity);
    safe = meta.props.every((prop) => {
      if (!prop.fieldNames) return true;
      const column = (prop.columnTypes?.[0] ?? '').toLowerCase();
      if (prop.customType instanceof DecimalType) return prop.customType.mode === 'number';
      return !/bytea|blob|bigint|int8|numeric|decimal/.test(column);
    });
    safeByEntity.set(entity, safe);
  }
  return safe;
}

/**
 * Rows of several entities by uuid in ONE statement (a UNION ALL, each row as JSON), including
 * soft-deleted rows, as `Loaders.byUuid` reads them. Tenant-scoped entities are read in the
 * EntityManager's tenant only: the statement cannot be built without the tenant filter's argument.
 * Returns each request's rows in request order (missing uuids are simply absent).
 */
export async function readRowsByUuid(em: EntityManager, requests: RowRequest[]): Promise<Row<object>[][]> {
  const ordered = [...requests].sort((a, b) => a.entity.name.localeCompare(b.entity.name));
  const scopes = ordered.map(({ entity }) => tenantScopeOf(em, entity, { live: false }));
  const values = ordered.flatMap(({ uuids }, index) => [uuids, ...scopes[index]!.values]);
  const text = unionByUuids(
    em,
    ordered.map(({ entity }) => entity),
    scopes,
    'deleted too',
    'any of uuids',
  );
  const found = await sqlRows<{ part: number; row: string }>(em, text, values);
  const byPart = ordered.map(() => [] as Row<object>[]);
  for (const { part, row } of found) byPart[part]!.push(jsonRowToRow(em, ordered[part]!.entity, JSON.parse(row) as Record<string, unknown>));
  return requests.map((request) => byPart[ordered.indexOf(request)]!);
}

/** Statement texts by their entities' names: the combinations selections reach are few, and the cache is capped anyway. */
const statements = new Map<string, string>();
const MAX_STATEMENTS = 256;

/** What each part of a union matches: one uuid (`= $n`: a primary-key lookup PostgreSQL plans cheaply), or an array of them. */
export type UuidMatch = 'one uuid' | 'any of uuids';

/**
 * The UNION ALL for these entities, in this order: per part its uuid match and its tenant scope
 * (made by `tenantScopeOf`, live rows only or not, as `rows` says). Each row comes as JSON with its
 * part's index; the values are, per part, its uuid(s) then its scope's values.
 */
export function unionByUuids(
  em: EntityManager,
  entities: EntityClass<object>[],
  scopes: TenantScope[],
  rows: 'live' | 'deleted too',
  match: UuidMatch,
): string {
  const key = `${rows}:${match}:${entities.map((entity) => entity.name).join()}`;
  let text = statements.get(key);
  if (text) return text;
  const platform = em.getPlatform();
  let parameter = 0;
  const parts = entities.map((entity, index) => {
    const meta = em.getMetadata().get(entity);
    const uuid = `t.${platform.quoteIdentifier((meta.properties as Record<string, { fieldNames: string[] }>)['uuid']!.fieldNames[0]!)}`;
    const matched = match === 'one uuid' ? `${uuid} = $${++parameter}::uuid` : `${uuid} = any($${++parameter}::uuid[])`;
    const conditions = [matched, ...scopes[index]!.conditions('t', parameter + 1)];
    parameter += scopes[index]!.values.length;
    return `select ${index} as part, ${rowJsonSql(em, entity, 't')}::text as row from ${platform.quoteIdentifier(meta.tableName)} t where ${conditions.join(' and ')}`;
  });
  text = parts.join('\nunion all\n');
  if (statements.size < MAX_STATEMENTS) statements.set(key, text);
  return text;
}

/** A row as `row_to_json` gave it, mapped as `readRows` maps a row: property names and JS types by the ORM, the entity's prototype, no entity. */
export function jsonRowToRow(em: EntityManager, entity: EntityClass<object>, raw: Record<string, unknown>): Row<object> {
  const meta = em.getMetadata().get(entity) as EntityMetadata<object>;
  const mapped = em.getDriver().mapResult(raw as never, meta) as Record<string, unknown>;
  return Object.assign(Object.create((entity as unknown as { prototype: object }).prototype), mapped) as Row<object>;
}

/** A many-to-one whose row a read brings along (db/page-statement.ts), so its field needs no batch of its own. */
export interface RelatedRead {
  /** The relation's property on the read entity (`student` of an Enrollment). */
  property: string;
  /** Its column (`student_uuid`). */
  column: string;
  entity: EntityClass<object>;
}

/**
 * The many-to-ones among `names` (fields an operation selects) that a row statement can bring along:
 * a relation of a tenant-scoped entity to a tenant-scoped entity whose rows read back as JSON, so the
 * related row is read in the same tenant, as the batched loader would read it.
 */
export function relatedReads(em: EntityManager, entity: EntityClass<object>, names: Iterable<string>): RelatedRead[] {
  if (!isTenantScoped(entity)) return [];
  const meta = em.getMetadata().get(entity) as EntityMetadata<object>;
  const reads: RelatedRead[] = [];
  for (const name of names) {
    const prop = meta.properties[name as keyof object] as EntityMetadata<object>['props'][number] | undefined;
    if (!prop || prop.kind !== ReferenceKind.MANY_TO_ONE || prop.fieldNames?.length !== 1) continue;
    const target = prop.targetMeta?.class as EntityClass<object> | undefined;
    if (!target || !isTenantScoped(target) || !readableAsJson(em, target)) continue;
    reads.push({ property: name, column: prop.fieldNames[0]!, entity: target });
  }
  return reads;
}
