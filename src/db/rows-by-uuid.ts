import { DecimalType, type EntityClass, type EntityMetadata } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { rowJsonSql } from './lazy-columns.js';
import { sqlRows } from './sql-rows.js';
import type { Row } from './rows.js';
import { type TenantScope, tenantScopeOf } from './tenant-scope.js';

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
