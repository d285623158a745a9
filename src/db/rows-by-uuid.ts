import { DecimalType, type EntityClass, type EntityMetadata } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { queryPrepared } from './prepared.js';
import type { Row } from './rows.js';
import { isTenantScoped, TENANT_FILTER } from './tenant-scope.js';

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
 * Rows of several entities by uuid in ONE statement (a prepared UNION ALL, each row as JSON), including
 * soft-deleted rows, as `Loaders.byUuid` reads them. Tenant-scoped entities are read in the
 * EntityManager's tenant only: the statement cannot be built without the tenant filter's argument.
 * Returns each request's rows in request order (missing uuids are simply absent).
 */
export async function readRowsByUuid(em: EntityManager, requests: RowRequest[]): Promise<Row<object>[][]> {
  const ordered = [...requests].sort((a, b) => a.entity.name.localeCompare(b.entity.name));
  const tenantUuid = em.getFilterParams<{ id?: string }>(TENANT_FILTER)?.id;
  const platform = em.getPlatform();
  const parts: string[] = [];
  const values: unknown[] = [];
  ordered.forEach(({ entity, uuids }, index) => {
    const meta = em.getMetadata().get(entity);
    const column = (property: string) =>
      `t.${platform.quoteIdentifier((meta.properties as Record<string, { fieldNames: string[] }>)[property]!.fieldNames[0]!)}`;
    values.push(uuids);
    const conditions = [`${column('uuid')} = any($${values.length}::uuid[])`];
    if (isTenantScoped(entity)) {
      if (!tenantUuid) throw new Error(`refusing to read ${entity.name} outside a tenant scope`);
      values.push(tenantUuid);
      conditions.push(`${column('tenant')} = $${values.length}::uuid`);
    }
    parts.push(`select ${index} as part, row_to_json(t)::text as row from ${platform.quoteIdentifier(meta.tableName)} t where ${conditions.join(' and ')}`);
  });
  const found = await queryPrepared<{ part: number; row: string }>(em, parts.join('\nunion all\n'), values);
  const byPart = ordered.map(() => [] as Row<object>[]);
  for (const { part, row } of found) byPart[part]!.push(toRow(em, ordered[part]!.entity, JSON.parse(row) as Record<string, unknown>));
  return requests.map((request) => byPart[ordered.indexOf(request)]!);
}

/** As `readRows` maps a row: property names and JS types by the ORM, the entity's prototype, no entity. */
function toRow(em: EntityManager, entity: EntityClass<object>, raw: Record<string, unknown>): Row<object> {
  const meta = em.getMetadata().get(entity) as EntityMetadata<object>;
  const mapped = em.getDriver().mapResult(raw as never, meta) as Record<string, unknown>;
  return Object.assign(Object.create((entity as unknown as { prototype: object }).prototype), mapped) as Row<object>;
}
