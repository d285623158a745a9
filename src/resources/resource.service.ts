import { type EntityClass, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import type { TenantScopedEntity } from '../db/base.entity.js';
import { equalityFilter, findPage, type ListOptions } from '../db/listing.js';
import { findOrFail, softDelete, softDeleteMany } from '../db/lookup.js';
import { invalid, type FieldErrors } from '../errors/domain-error.js';
import type { Page } from '../graphql/connection.js';

export type WriteMode = 'create' | 'update' | 'replace';

export interface ListArgs extends ListOptions {
  where?: object;
}

/**
 * The lifecycle every catalogue resource shares: list, get, create, PATCH, PUT, soft delete and
 * all-or-nothing batch delete, all within the request's tenant. A resource supplies its defaults
 * and its rules in `apply`; everything else is the same for all of them.
 */
export abstract class ResourceService<T extends TenantScopedEntity, Input extends object> {
  protected abstract readonly entity: EntityClass<T> & (new () => T);
  /** "Institution": used in 404 messages. */
  protected abstract readonly label: string;
  /** Values of optional fields on create and PUT when the client leaves them out. */
  protected readonly defaults: Partial<Input> = {};
  /** `where` input field → entity property, when they differ (courseUuid → course). */
  protected readonly whereColumns: Record<string, string> = {};
  protected readonly uuidWhereFields: string[] = [];
  /** Unique constraint name → the field and message a violation reports (races past `apply`'s checks). */
  protected readonly uniqueViolations: Record<string, FieldErrors> = {};

  /**
   * Writes `input` (only the fields present) onto `row`, resolving related uuids within the tenant and
   * enforcing the resource's rules, throwing DomainErrors. `row` is new on create.
   */
  protected abstract apply(ctx: RequestContext, row: T, input: Partial<Input>, mode: WriteMode): Promise<void>;

  list(ctx: RequestContext, { where, ...options }: ListArgs): Promise<Page<T>> {
    return findPage(ctx.em, this.entity, this.filter(where) as never, options);
  }

  /** The list filter for a `where` input; resources with non-equality filters override it. */
  protected filter(where: object | undefined): Record<string, unknown> {
    return equalityFilter(where, this.whereColumns, this.uuidWhereFields);
  }

  get(ctx: RequestContext, uuid: string): Promise<T> {
    return findOrFail(ctx.em, this.entity, uuid, this.label);
  }

  async create(ctx: RequestContext, input: Input): Promise<T> {
    const row = new this.entity();
    await this.apply(ctx, row, { ...this.defaults, ...input }, 'create');
    ctx.em.persist(row);
    await this.flush(ctx);
    return row;
  }

  async update(ctx: RequestContext, uuid: string, input: Partial<Input>): Promise<T> {
    const row = await this.get(ctx, uuid);
    await this.apply(ctx, row, input, 'update');
    await this.flush(ctx);
    return row;
  }

  async replace(ctx: RequestContext, uuid: string, input: Input): Promise<T> {
    const row = await this.get(ctx, uuid);
    await this.apply(ctx, row, { ...this.defaults, ...input }, 'replace');
    await this.flush(ctx);
    return row;
  }

  async delete(ctx: RequestContext, uuid: string): Promise<boolean> {
    const row = await this.get(ctx, uuid);
    await this.beforeDelete(ctx, [row]);
    await softDelete(ctx.em, row);
    return true;
  }

  deleteMany(ctx: RequestContext, uuids: string[]): Promise<number> {
    return softDeleteMany(ctx.em, this.entity, uuids, (rows) => this.beforeDelete(ctx, rows));
  }

  /** Refuse or prepare a delete (e.g. a used file); runs inside the delete's transaction for batches. */
  protected async beforeDelete(_ctx: RequestContext, _rows: T[]): Promise<void> {}

  protected async flush(ctx: RequestContext): Promise<void> {
    try {
      await ctx.em.flush();
    } catch (error) {
      const constraint = (error as { constraint?: string }).constraint;
      const violation = constraint ? this.uniqueViolations[constraint] : undefined;
      if (error instanceof UniqueConstraintViolationException && violation) {
        ctx.em.clear();
        throw invalid(violation);
      }
      throw error;
    }
  }
}

/** Copies the present keys of `input` listed in `fields` onto `row`. */
export function assignPresent<T extends object>(row: T, input: object, fields: readonly string[]): void {
  for (const field of fields) {
    if (field in input) (row as Record<string, unknown>)[field] = (input as Record<string, unknown>)[field];
  }
}
