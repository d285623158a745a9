import { type EntityClass, type Ref, ref, UniqueConstraintViolationException } from '@mikro-orm/core';
import { type RelationValue, uuidOf } from '../context/loaders.js';
import type { RequestContext } from '../context/request-context.js';
import type { TenantScopedEntity } from '../db/base.entity.js';
import { equalityFilter, findPage, type ListOptions } from '../db/listing.js';
import { ensureUnique, findOrFail, requireRelated, softDeleteMany } from '../db/lookup.js';
import { readPageStatement } from '../db/page-statement.js';
import { relatedReads } from '../db/rows.js';
import { isUuid } from '../db/uuid.js';
import { invalid, notFound, type FieldErrors } from '../errors/domain-error.js';
import type { Page } from '../db/paging.js';
import type { Row } from '../db/rows.js';
import { lookUpReferences } from './references.js';

export type WriteMode = 'create' | 'update' | 'replace';

/** The properties of `T` that hold a reference to an `R` (`'institution'` of a Course). */
export type RelationOf<T, R extends object> = { [K in keyof T]-?: NonNullable<T[K]> extends Ref<R> ? K : never }[keyof T];

/**
 * A many-to-one of `T` set from an input field naming the related row's uuid (`courseUuid` → `course`);
 * without `property`, a record the input names that the service reads later (a certificate's source file).
 */
export interface Relation<T, Input> {
  property?: keyof T;
  entity: EntityClass<TenantScopedEntity>;
  field: keyof Input & string;
  /** The input field that may name the related row by its `external_id` instead (`courseExternalId`). */
  externalField?: keyof Input & string;
}

export interface ListArgs extends Omit<ListOptions, 'related'> {
  where?: object;
  /** The fields the operation selects on each row: the many-to-ones among them are read with the page. */
  selected?: Iterable<string>;
}

/** What the generic resolver (resource.resolver.ts) calls on a resource's service. */
export interface ResourceOperations<T extends TenantScopedEntity, Input extends object> {
  list(ctx: RequestContext, args: ListArgs): Promise<Page<Row<T>>>;
  get(ctx: RequestContext, uuid: string, parentUuid?: string): Promise<T>;
  getRow(ctx: RequestContext, uuid: string, parentUuid?: string, selected?: Iterable<string>): Promise<Row<T>>;
  create(ctx: RequestContext, input: Input): Promise<T>;
  update(ctx: RequestContext, uuid: string, input: Partial<Input>, parentUuid?: string): Promise<T>;
  replace(ctx: RequestContext, uuid: string, input: Input, parentUuid?: string): Promise<T>;
  delete(ctx: RequestContext, uuid: string, parentUuid?: string): Promise<boolean>;
  deleteMany(ctx: RequestContext, uuids: string[], parentUuid?: string): Promise<number>;
}

/**
 * What every tenant resource shares, whatever its writes look like: list, get, soft delete and
 * all-or-nothing batch delete within the request's tenant, the write transaction, and relating rows.
 */
export abstract class ResourceBase<T extends TenantScopedEntity> {
  protected abstract readonly entity: EntityClass<T> & (new () => T);
  /** "Institution": used in 404 messages. */
  protected abstract readonly label: string;
  /** `where` input field → entity property, when they differ (courseUuid → course). */
  protected readonly whereColumns: Record<string, string> = {};
  protected readonly uuidWhereFields: string[] = [];
  /** The relation a nested collection hangs from (`course` for module groups); guards lookups by parent. */
  protected readonly parentField?: keyof T;
  /** The parent's entity, when a batch delete naming a missing parent must be a 404 (a REST path names it). */
  protected readonly parentEntity?: EntityClass<TenantScopedEntity>;
  /** Unique constraint name → the field and message a violation reports (races past the rules' checks). */
  protected readonly uniqueViolations: Record<string, FieldErrors> = {};

  async list(ctx: RequestContext, { where, selected = [], ...options }: ListArgs): Promise<Page<Row<T>>> {
    const related = relatedReads(ctx.em, this.entity, selected);
    const page = await findPage(ctx.em, this.entity, this.filter(where) as never, { ...options, related });
    ctx.loaders.prime(page.related ?? []);
    return page;
  }

  /** The list filter for a `where` input; resources with non-equality filters override it. */
  protected filter(where: object | undefined): Record<string, unknown> {
    return equalityFilter(where, this.whereColumns, this.uuidWhereFields);
  }

  /** A live row of this tenant; with `parentUuid`, also under that parent (else 404, as for a foreign uuid). */
  async get(ctx: RequestContext, uuid: string, parentUuid?: string): Promise<T> {
    const row = await findOrFail(ctx.em, this.entity, uuid, this.label);
    this.requireUnder(row, parentUuid);
    return row;
  }

  /**
   * `get` for display: the same live row of this tenant (and parent) as a plain row, so it costs no
   * managed entity. With the many-to-ones among `selected` it is one statement bringing their rows
   * along for the request's loaders; else it goes through the batched loader, sharing its statement
   * with whatever else is loaded in the same tick.
   */
  async getRow(ctx: RequestContext, uuid: string, parentUuid?: string, selected: Iterable<string> = []): Promise<Row<T>> {
    if (!isUuid(uuid)) throw notFound(this.label);
    const related = relatedReads(ctx.em, this.entity, selected);
    const read =
      related.length > 0 ? await readPageStatement(ctx.em, this.entity, { filter: { uuid }, limit: 1, offset: 0, withTotal: false, related }) : undefined;
    if (read) ctx.loaders.prime(read.related);
    const row = read ? read.rows[0] : await ctx.loaders.byUuid(this.entity).load(uuid);
    if (!row || row.deletedAt) throw notFound(this.label);
    this.requireUnder(row, parentUuid);
    return row;
  }

  /** With `parentUuid`, the row (entity or read row) must hang from that parent: else 404, as for a foreign uuid. */
  private requireUnder(row: T | Row<T>, parentUuid: string | undefined): void {
    if (!this.parentField || parentUuid == null) return;
    const parent = (row as Record<string, unknown>)[this.parentField as string] as RelationValue | null | undefined;
    if (!parent || uuidOf(parent) !== parentUuid) throw notFound(this.label);
  }

  delete(ctx: RequestContext, uuid: string, parentUuid?: string): Promise<boolean> {
    return this.write(ctx, async (tx) => {
      const row = await this.get(tx, uuid, parentUuid);
      await this.beforeDelete(tx, [row]);
      row.deletedAt = new Date();
      return true;
    });
  }

  /** With `parentUuid`, every row must also be under that parent (else 422, nothing deleted). */
  async deleteMany(ctx: RequestContext, uuids: string[], parentUuid?: string): Promise<number> {
    const within = this.parentField && parentUuid != null ? { [this.parentField]: parentUuid } : {};
    if (parentUuid != null && !isUuid(parentUuid)) throw notFound(this.label);
    if (parentUuid != null && this.parentEntity) await findOrFail(ctx.em, this.parentEntity, parentUuid, this.label);
    return softDeleteMany(ctx.em, this.entity, uuids, (rows, em) => this.beforeDelete({ ...ctx, em }, rows), within);
  }

  /** Refuse or prepare a delete (e.g. a used file); runs inside the delete's transaction. */
  protected async beforeDelete(_ctx: RequestContext, _rows: T[]): Promise<void> {}

  /**
   * Runs a state change in one transaction on a fork of the request's EntityManager (committed with
   * everything it touched, or not at all); unique-index races become the resource's 422.
   */
  protected async write<R>(ctx: RequestContext, work: (tx: RequestContext) => Promise<R>): Promise<R> {
    try {
      return await ctx.em.transactional((em) => work({ ...ctx, em }));
    } catch (error) {
      const constraint = (error as { constraint?: string }).constraint;
      const violation = constraint ? this.uniqueViolations[constraint] : undefined;
      if (error instanceof UniqueConstraintViolationException && violation) throw invalid(violation);
      throw error;
    }
  }

  /**
   * Sets `externalId` when the input carries it: unique among the tenant's live rows of this resource
   * (422, as for other uniqueness rules; the unique index decides races, see `uniqueViolations`).
   */
  protected async applyExternalId(ctx: RequestContext, row: T & { externalId?: string | null }, input: { externalId?: string | null }): Promise<void> {
    if (!('externalId' in input)) return;
    row.externalId = input.externalId ?? null;
    if (row.externalId != null) await ensureUnique(ctx.em, this.entity, { externalId: row.externalId } as never, row.uuid, 'externalId');
  }

  /**
   * Points `row[property]` at the related row named by `input[field]` when the field is present:
   * a live row of this tenant (else 422 on the field), or nothing when the field is null.
   */
  protected async relate<R extends TenantScopedEntity, Input extends object>(
    ctx: RequestContext,
    row: T,
    property: RelationOf<T, R>,
    entity: EntityClass<R>,
    input: Partial<Input>,
    field: keyof Input & string,
  ): Promise<R | null | undefined> {
    if (!(field in input)) return undefined;
    const uuid = input[field] as string | null | undefined;
    const related = uuid == null ? null : await requireRelated(ctx.em, entity, uuid, field);
    (row as Record<keyof T, unknown>)[property] = related ? ref(related) : null;
    return related;
  }

  /**
   * `relate` for several fields at once: every related row named in `input` read in one statement
   * (references.ts), and every field naming no live row of this tenant reported in one 422, with
   * `otherErrors`. A relation's `externalField` names the row by its `external_id` instead; its misses
   * join the same 422. Rows read without a `property` stay in the identity map for later rules.
   */
  protected async relateAll<Input extends object>(
    ctx: RequestContext,
    row: T,
    given: Partial<Input>,
    relations: Relation<T, Input>[],
    otherErrors: FieldErrors = {},
  ): Promise<void> {
    const { input, rows, errors } = (await lookUpReferences(ctx.em, [{ given, references: relations }]))[0]!;
    if (Object.keys(errors).length > 0 || Object.keys(otherErrors).length > 0) throw invalid({ ...otherErrors, ...errors });
    for (const { property, field } of relations) {
      if (property === undefined || !(field in input)) continue;
      const related = rows.get(field);
      (row as Record<keyof T, unknown>)[property] = related ? ref(related) : null;
    }
  }
}

/**
 * The lifecycle every catalogue resource shares on top of the base: create, PATCH and PUT through
 * one `apply` hook. A resource supplies its defaults and its rules in `apply`; everything else is the
 * same for all of them. Resources with a state machine (certificates) name their writes instead.
 */
export abstract class ResourceService<T extends TenantScopedEntity, Input extends object> extends ResourceBase<T> implements ResourceOperations<T, Input> {
  /** Values of optional fields on create and PUT when the client leaves them out. */
  protected readonly defaults: Partial<Input> = {};

  /**
   * Writes `input` (only the fields present) onto `row`, resolving related uuids within the tenant and
   * enforcing the resource's rules, throwing DomainErrors. `row` is new on create.
   */
  protected abstract apply(ctx: RequestContext, row: T, input: Partial<Input>, mode: WriteMode): Promise<void>;

  create(ctx: RequestContext, input: Input): Promise<T> {
    return this.write(ctx, async (tx) => {
      const row = new this.entity();
      await this.apply(tx, row, { ...this.defaults, ...input }, 'create');
      tx.em.persist(row);
      return row;
    });
  }

  update(ctx: RequestContext, uuid: string, input: Partial<Input>, parentUuid?: string): Promise<T> {
    return this.write(ctx, async (tx) => {
      const row = await this.get(tx, uuid, parentUuid);
      await this.apply(tx, row, input, 'update');
      return row;
    });
  }

  replace(ctx: RequestContext, uuid: string, input: Input, parentUuid?: string): Promise<T> {
    return this.write(ctx, async (tx) => {
      const row = await this.get(tx, uuid, parentUuid);
      await this.apply(tx, row, { ...this.defaults, ...input }, 'replace');
      return row;
    });
  }
}

/** Copies the present keys of `input` listed in `fields` onto `row`. */
export function assignPresent<T extends object>(row: T, input: object, fields: readonly string[]): void {
  for (const field of fields) {
    if (field in input) (row as Record<string, unknown>)[field] = (input as Record<string, unknown>)[field];
  }
}
