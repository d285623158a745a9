import { ArgsType, type ClassType, Field, InputType, registerEnumType } from 'type-graphql';
import type { ListArgs } from '../resources/resource.service.js';
import { SortOrder } from '../db/paging.js';
import { humanize } from '../errors/humanize.js';
import { PageArgs } from './connection.js';
import { withFilterOperators } from './filter-inputs.js';

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
