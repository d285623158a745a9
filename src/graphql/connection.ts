import { type GraphQLResolveInfo, Kind, type SelectionNode, type SelectionSetNode } from 'graphql';
import { ArgsType, Field, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { IsOptional, Max, Min } from 'class-validator';
import type { ClassType } from 'type-graphql';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type Page, SortOrder } from '../db/paging.js';
import { humanize } from '../errors/humanize.js';
import type { ListArgs } from '../resources/resource.service.js';
import { withFilterOperators } from './filter-inputs.js';

registerEnumType(SortOrder, {
  name: 'SortOrder',
  description: 'Direction of a sort.',
  valuesConfig: { asc: { description: 'Smallest first.' }, desc: { description: 'Largest first.' } },
});

/** A relation list (`Course.modules`) shows at most this many rows. */
export const MAX_RELATION_SIZE = 100;

@ObjectType({ simpleResolvers: true, description: 'Where a page is in its list (Relay).' })
export class PageInfo {
  @Field({ description: 'Whether rows follow this page.' })
  hasNextPage!: boolean;

  @Field({ description: 'Whether rows precede this page.' })
  hasPreviousPage!: boolean;

  @Field(() => String, { nullable: true, description: 'The cursor of the first edge; pass it as `before` for the previous page.' })
  startCursor!: string | null;

  @Field(() => String, { nullable: true, description: 'The cursor of the last edge; pass it as `after` for the next page.' })
  endCursor!: string | null;
}

/**
 * `first`/`after`: a page forwards. What a relation's connection takes (`Student.certificates`: one page
 * of each parent's rows in uuid order, every parent of a page read in one batched statement); root
 * lists add backward paging (`PageArgs`). Cursors are opaque; they encode the row's sort value and uuid (db/paging.ts).
 */
@ArgsType()
export class RelationPageArgs {
  @Field(() => Int, { nullable: true, description: `Page size, 1-${MAX_PAGE_SIZE}; default ${DEFAULT_PAGE_SIZE}.` })
  @IsOptional()
  @Min(1, { message: 'The first field must be at least 1.' })
  @Max(MAX_PAGE_SIZE, { message: `The first field must not be greater than ${MAX_PAGE_SIZE}.` })
  first?: number;

  @Field(() => String, { nullable: true, description: 'The endCursor of the previous page.' })
  after?: string;
}

/** `first`/`after` and Relay's `last`/`before`, as root connections take them. */
@ArgsType()
export class PageArgs extends RelationPageArgs {
  @Field(() => Int, {
    nullable: true,
    description: `Relay backward paging: the last rows before \`before\` (or of the list), 1-${MAX_PAGE_SIZE}; not with \`first\`.`,
  })
  @IsOptional()
  @Min(1, { message: 'The last field must be at least 1.' })
  @Max(MAX_PAGE_SIZE, { message: `The last field must not be greater than ${MAX_PAGE_SIZE}.` })
  last?: number;

  @Field(() => String, { nullable: true, description: 'The startCursor of the next page: rows before it.' })
  before?: string;
}

/** `first` of a relation list: its rows come from one batched query, at most `first` per parent. */
@ArgsType()
export class RelationArgs {
  @Field(() => Int, { defaultValue: MAX_RELATION_SIZE, description: `Rows to show, 1-${MAX_RELATION_SIZE}; list the root connection for more.` })
  @Min(1, { message: 'The first field must be at least 1.' })
  @Max(MAX_RELATION_SIZE, { message: `The first field must not be greater than ${MAX_RELATION_SIZE}.` })
  first!: number;
}

export interface Connection<T> {
  nodes: T[];
  edges: { cursor: string; node: T }[];
  pageInfo: PageInfo;
  /** Absent only when the operation did not select it (see `asksForTotal`). */
  totalCount?: number;
  /** Whether `totalCount` is an estimate (db/page-statement.ts `EXACT_TOTAL_LIMIT`). */
  totalCountIsEstimate?: boolean;
}

/**
 * Whether the operation selects `totalCount` of the connection being resolved (directly, or through
 * fragments; `@skip`/`@include` are not evaluated, so a conditional selection counts as asked). Only
 * then does a list count its rows.
 */
export function asksForTotal(info: GraphQLResolveInfo): boolean {
  const selects = (selections: readonly SelectionNode[]): boolean =>
    selections.some((selection) => {
      if (selection.kind === Kind.FIELD) return selection.name.value === 'totalCount' || selection.name.value === 'totalCountIsEstimate';
      if (selection.kind === Kind.INLINE_FRAGMENT) return selects(selection.selectionSet.selections);
      const fragment = info.fragments[selection.name.value];
      return fragment ? selects(fragment.selectionSet.selections) : false;
    });
  return info.fieldNodes.some((node) => selects(node.selectionSet?.selections ?? []));
}

export function toConnection<T>({ rows, cursors, total, totalIsEstimate, hasMore, hasPrevious }: Page<T>): Connection<T> {
  const edges = rows.map((node, index) => ({ cursor: cursors[index]!, node }));
  return {
    nodes: rows,
    edges,
    pageInfo: {
      hasNextPage: hasMore,
      hasPreviousPage: hasPrevious,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount: total,
    totalCountIsEstimate: totalIsEstimate === true,
  };
}

/** One type a name: a node's connection is declared by its root list and reused by relations that page the same rows. */
const connectionTypes = new Map<string, ClassType<Connection<object>>>();

/** `<Name>Connection` and `<Name>Edge` object types for a node type (the same classes for every caller naming them). */
export function ConnectionType<T extends object>(node: ClassType<T>, name: string): ClassType<Connection<T>> {
  const known = connectionTypes.get(name);
  if (known) return known as ClassType<Connection<T>>;
  const made = defineConnectionType(node, name);
  connectionTypes.set(name, made as ClassType<Connection<object>>);
  return made;
}

function defineConnectionType<T extends object>(node: ClassType<T>, name: string): ClassType<Connection<T>> {
  @ObjectType(`${name}Edge`, { simpleResolvers: true, description: `One ${name} of a page, with its cursor.` })
  class Edge {
    @Field({ description: 'Opaque position of this row; pass it as `after` or `before`.' })
    cursor!: string;

    @Field(() => node, { description: `The ${name}.` })
    node!: T;
  }

  @ObjectType(`${name}Connection`, { simpleResolvers: true, description: `A page of ${name} records (Relay connection).` })
  class ConnectionOf {
    @Field(() => [node], { description: 'The records of this page, in order.' })
    nodes!: T[];

    @Field(() => [Edge], { description: 'The records of this page with their cursors.' })
    edges!: Edge[];

    @Field(() => PageInfo, { description: 'Whether more rows precede or follow, and the cursors to reach them.' })
    pageInfo!: PageInfo;

    @Field(() => Int, {
      description: 'Rows in the whole filtered list: exact up to 10,000 rows of a filtered list, the planner’s estimate past that (see totalCountIsEstimate).',
    })
    totalCount!: number;

    @Field({
      description: 'Whether totalCount is an estimate: true only for a filtered list of more than 10,000 rows, whose rows are not all counted on every page.',
    })
    totalCountIsEstimate!: boolean;
  }
  return ConnectionOf;
}

/**
 * The names of the fields the operation selects on the object being resolved, or with `path` on an
 * object below it (`['nodes']` and `['edges', 'node']` for a connection's nodes), through fragments
 * and inline fragments. `@skip`/`@include` are not evaluated: a conditional field counts as selected,
 * which only ever reads a little more than needed.
 */
export function selectedFieldNames(info: GraphQLResolveInfo, ...paths: string[][]): Set<string> {
  const names = new Set<string>();
  const visit = (set: SelectionSetNode | undefined, path: string[]): void => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet, path);
      else if (selection.kind === Kind.FRAGMENT_SPREAD) visit(info.fragments[selection.name.value]?.selectionSet, path);
      else if (path.length === 0) names.add(selection.name.value);
      else if (selection.name.value === path[0]) visit(selection.selectionSet, path.slice(1));
    }
  };
  for (const node of info.fieldNodes) for (const path of paths.length > 0 ? paths : [[]]) visit(node.selectionSet, path);
  return names;
}

/** The fields selected on a connection's nodes, whether reached through `nodes` or `edges { node }`. */
export const selectedNodeFieldNames = (info: GraphQLResolveInfo): Set<string> => selectedFieldNames(info, ['nodes'], ['edges', 'node']);

/**
 * `<Name>Sort` ({ column, order }) and the list arguments (where, sort, first, after) of a resource.
 * Sort columns are an enum of snake_case names, the same words REST uses in `sort[column]`.
 */
export function ListArgsType(name: string, where: ClassType<object>, columns: readonly string[]): ClassType<ListArgs> {
  withFilterOperators(where, name, columns);
  const Columns = Object.fromEntries(columns.map((column) => [column, column]));
  registerEnumType(Columns, {
    name: `${name}SortColumn`,
    description: `The columns a ${name} list sorts by (REST \`sort[column]\`).`,
    valuesConfig: Object.fromEntries(columns.map((column) => [column, { description: `By ${humanize(column)}.` }])),
  });

  @InputType(`${name}Sort`, { description: `How a ${name} list is ordered; uuid (creation order) breaks ties.` })
  class Sort {
    @Field(() => Columns, { description: 'The column to sort by.' })
    column!: string;

    @Field(() => SortOrder, { nullable: true, defaultValue: SortOrder.asc, description: 'Ascending unless `desc`.' })
    order?: SortOrder;
  }

  @ArgsType()
  class Args extends PageArgs {
    @Field(() => where, {
      nullable: true,
      description:
        'Filters, all of which must hold: a field equals a value (an explicit null matches empty values), or operators (`createdAt: { gte: … }`, `statusIs: { in: […] }`).',
    })
    where?: object;

    @Field(() => Sort, { nullable: true, description: 'Ordering; default by uuid (creation order).' })
    sort?: Sort;
  }
  return Args;
}
