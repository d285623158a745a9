import { type EntityClass, type Reference } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';

import { type Page } from '../db/paging.js';
import { uuidOrderPage } from '../db/listing.js';
import { readableAsJson, readLazyJson, readRowsByUuid, type Row } from '../db/rows.js';
import { countsPer, firstRowsPer, rankOf, readRowsByUuidOf } from '../db/relation-rows.js';

import { JsonText } from '../db/json-text.js';
import { ResponseBudget } from './response-budget.js';

interface RowKey {
  entity: EntityClass<object>;
  uuid: string;
}

/** A many-to-one as a read row holds it (the uuid) or as an entity does (a reference). */
export type RelationValue = string | { uuid: string };

export const uuidOf = (value: RelationValue): string => (typeof value === 'string' ? value : value.uuid);

/**
 * A relation's row: the row itself when this request already holds it (primed from its page
 * statement, or an entity a write loaded), else its batched load. A value resolves its field at
 * once; a promise per field would cost every row of a page a round of promise reactions.
 */
export type Loaded<T> = T | Promise<T>;

const rowKey = (entity: EntityClass<object>, uuid: string) => `${entity.name}:${uuid}`;

/**
 * The entity behind a reference this request already loaded (a write's result holds its parties):
 * it is the row, read in this request's tenant-scoped EntityManager, so it is not read again.
 */
function loadedEntity(value: RelationValue): object | undefined {
  const reference = value as Partial<Reference<object>>;
  return typeof value === 'object' && reference.isInitialized?.() ? reference.getEntity!() : undefined;
}

/**
 * The DataLoaders of one request. Created per request (never module level) so a cached row can
 * never cross into another tenant's request; every batch runs on the request's tenant-scoped fork
 * and returns plain rows (db/rows.ts), since relation fields only display what they load.
 */
export class Loaders {
  private readonly byKey = new Map<string, DataLoader<unknown, unknown>>();

  constructor(
    private readonly em: EntityManager,
    /** What the answer may still take: lazy columns are charged to it before they are read. */
    readonly budget = new ResponseBudget(Number.POSITIVE_INFINITY),
  ) {}

  /**
   * Rows by primary key. Every uuid any resolver asks for in the same tick, of whatever entity, is
   * read in ONE statement (db/rows.ts) — a page's student, course and cohort together.
   * Soft-deleted rows are included: what points at a deleted row still shows it (a deleted
   * institution's name on its certificates).
   */
  private readonly rowsByUuid = new DataLoader<RowKey, Row<object> | null, string>((keys) => this.loadRows(keys), {
    cacheKeyFn: ({ entity, uuid }) => rowKey(entity, uuid),
  });

  /** The rows `prime` was given: `one` and `optional` answer them without a promise, `byUuid` without a batch. */
  private readonly primed = new Map<string, Row<object>>();

  /** Rows read elsewhere in this request (a page's related rows, db/page-statement.ts), so loading them reads nothing. */
  prime(related: readonly { entity: EntityClass<object>; rows: readonly Row<object>[] }[]): void {
    for (const { entity, rows } of related) {
      for (const row of rows) this.primed.set(rowKey(entity, (row as { uuid: string }).uuid), row);
    }
  }

  byUuid<T extends object>(entity: EntityClass<T>): { load(uuid: string): Promise<Row<T> | null> } {
    return {
      load: (uuid) => {
        const primed = this.primed.get(rowKey(entity as EntityClass<object>, uuid));
        return (primed ? Promise.resolve(primed) : this.rowsByUuid.load({ entity: entity as EntityClass<object>, uuid })) as Promise<Row<T> | null>;
      },
    };
  }

  private async loadRows(keys: readonly RowKey[]): Promise<(Row<object> | null)[]> {
    const uuidsByEntity = new Map<EntityClass<object>, string[]>();
    for (const { entity, uuid } of keys) {
      const uuids = uuidsByEntity.get(entity);
      if (uuids) uuids.push(uuid);
      else uuidsByEntity.set(entity, [uuid]);
    }
    const combined = [...uuidsByEntity.keys()].filter((entity) => readableAsJson(this.em, entity));
    const separate = [...uuidsByEntity.keys()].filter((entity) => !combined.includes(entity));
    const [combinedRows, ...separateRows] = await Promise.all([
      combined.length > 0
        ? readRowsByUuid(
            this.em,
            combined.map((entity) => ({ entity, uuids: uuidsByEntity.get(entity)! })),
          )
        : [],
      ...separate.map((entity) => readRowsByUuidOf(this.em, entity, uuidsByEntity.get(entity)!)),
    ]);
    const rowsOf = [...(combinedRows as Row<object>[][]), ...(separateRows as Row<object>[][])];
    const found = new Map<string, Row<object>>();
    [...combined, ...separate].forEach((entity, index) => {
      for (const row of rowsOf[index]!) found.set(rowKey(entity, (row as { uuid: string }).uuid), row);
    });
    return keys.map(({ entity, uuid }) => found.get(rowKey(entity, uuid)) ?? null);
  }

  /** The row a many-to-one points at: held already, or through the batched loader (one query per batch). */
  one<T extends object>(entity: EntityClass<T>, reference: RelationValue): Loaded<Row<T>> {
    const held = this.held(entity, reference);
    if (held) return held;
    return this.byUuid(entity)
      .load(uuidOf(reference))
      .then((row) => {
        if (!row) throw new Error(`${entity.name} ${uuidOf(reference)} referenced but missing`);
        return row;
      });
  }

  /** The row an optional many-to-one points at, or null. */
  optional<T extends object>(entity: EntityClass<T>, reference: RelationValue | null | undefined): Loaded<Row<T> | null> {
    if (!reference) return null;
    return this.held(entity, reference) ?? this.byUuid(entity).load(uuidOf(reference));
  }

  private held<T extends object>(entity: EntityClass<T>, reference: RelationValue): Row<T> | undefined {
    return (loadedEntity(reference) ?? this.primed.get(rowKey(entity as EntityClass<object>, uuidOf(reference)))) as Row<T> | undefined;
  }

  /**
   * Live rows whose `foreignKey` points at each key, at most `limit` per key, in one query per batch
   * (one-to-many). The limit is applied per key in SQL (a window over the foreign key), so a parent
   * with a million children costs `limit` rows. `rank` is the window's SQL order over alias `ranked`
   * when the order is not just columns of the row (see CourseModule's DISPLAY_RANK).
   */
  manyBy<T extends object>(
    entity: EntityClass<T>,
    foreignKey: keyof T & string,
    limit: number,
    orderBy: Record<string, 'asc' | 'desc'> = { uuid: 'asc' },
    rank?: string,
  ): DataLoader<string, Row<T>[]> {
    return this.cached(
      `many:${entity.name}.${foreignKey}:${limit}`,
      () =>
        new DataLoader<string, Row<T>[]>(async (keys) => {
          const grouped = new Map<string, Row<T>[]>(keys.map((key) => [key, []]));
          for (const row of await firstRowsPer(this.em, entity, foreignKey, [...keys], limit, rank ?? rankOf(this.em, entity, orderBy))) {
            grouped.get(uuidOf(row[foreignKey] as RelationValue))?.push(row);
          }
          return keys.map((key) => grouped.get(key)!);
        }),
    );
  }

  /**
   * One page of a one-to-many per key, as a connection pages it: the live rows whose `foreignKey`
   * points at the key, in uuid order, after the uuid `after` (the same bound for every key: a
   * field's arguments are the same for every parent of a page), `first` of them. Every key of a
   * batch is read in ONE statement (`manyBy`'s window, one row more per key to tell whether rows follow).
   */
  pageBy<T extends object>(entity: EntityClass<T>, foreignKey: keyof T & string, first: number, after?: string): DataLoader<string, Page<Row<T>>> {
    return this.cached(
      `page:${entity.name}.${foreignKey}:${first}:${after ?? ''}`,
      () =>
        new DataLoader<string, Page<Row<T>>>(async (keys) => {
          const grouped = new Map<string, Row<T>[]>(keys.map((key) => [key, []]));
          for (const row of await firstRowsPer(this.em, entity, foreignKey, [...keys], first + 1, rankOf(this.em, entity, {}), after)) {
            grouped.get(uuidOf(row[foreignKey] as RelationValue))?.push(row);
          }
          return keys.map((key) => {
            const rows = grouped.get(key)!;
            return uuidOrderPage(rows.slice(0, first), { hasMore: rows.length > first, hasPrevious: after !== undefined });
          });
        }),
    );
  }

  /** How many live rows' `foreignKey` points at each key: every key of a batch counted in ONE grouped statement. */
  countBy<T extends object>(entity: EntityClass<T>, foreignKey: keyof T & string): DataLoader<string, number> {
    return this.cached(
      `count:${entity.name}.${foreignKey}`,
      () =>
        new DataLoader<string, number>(async (keys) => {
          const counts = await countsPer(this.em, entity, foreignKey, [...keys]);
          return keys.map((key) => counts.get(key) ?? 0);
        }),
    );
  }

  /**
   * A lazy JSON column (db/rows.ts) of the row `uuid`, for display: its stored size `bytes` is
   * charged to the answer's budget first, so an answer over budget is refused (RESPONSE_TOO_LARGE)
   * before any of it is read. The rows asked for in the same tick are read in one statement.
   * Once the answer is refused (too large, over the tenant's byte rate, busy) its one error is the answer:
   * the other rows give null rather than a copy of it each (a refused page of 100 rows built 100
   * GraphQL errors, the largest part of a refusal's CPU in the neighbours bench).
   */
  lazyJson(entity: EntityClass<object>, property: string, uuid: string, bytes: number | null | undefined): Promise<unknown> {
    if (this.budget.refusal) return Promise.resolve(null);
    this.budget.charge(bytes ?? 0);
    return this.cached(
      `lazy:${entity.name}.${property}`,
      () =>
        new DataLoader<string, unknown>(async (uuids) => {
          if (this.budget.refusal) return uuids.map(() => null);
          try {
            // Other rows of the same answer may have passed the budget since these were charged: then nothing is read.
            this.budget.charge(0);
            await this.budget.admit();
          } catch (error) {
            return uuids.map((_, index) => (index === 0 ? (error as Error) : null));
          }
          // Passed on as text: the answer's writer copies it in, nothing parses it (http/json-text.ts).
          const texts = await readLazyJson(this.em, entity, property, [...uuids]);
          return uuids.map((uuid) => {
            const text = texts.get(uuid) ?? null;
            return text === null ? null : new JsonText(text);
          });
        }),
    ).load(uuid);
  }

  /** Forgets every row this request read: called once the answer no longer needs them (see graphql/released-answers.ts). */
  release(): void {
    this.primed.clear();
    this.rowsByUuid.clearAll();
    for (const loader of this.byKey.values()) loader.clearAll();
    this.byKey.clear();
  }

  /** This request's loader under `key`, made by `create` on first use (for batch reads outside the generic ones above). */
  cached<L extends DataLoader<never, unknown>>(key: string, create: () => L): L {
    let loader = this.byKey.get(key);
    if (!loader) this.byKey.set(key, (loader = create() as unknown as DataLoader<unknown, unknown>));
    return loader as unknown as L;
  }
}
