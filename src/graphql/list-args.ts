import { ArgsType, type ClassType, Field, InputType, registerEnumType } from 'type-graphql';
import type { ListArgs } from '../resources/resource.service.js';
import { SortOrder } from '../db/paging.js';
import { PageArgs } from './connection.js';

/**
 * `<Name>Sort` ({ column, order }) and the list arguments (where, sort, first, after) of a resource.
 * Sort columns are an enum of snake_case names, the same words REST uses in `sort[column]`.
 */
export function ListArgsType(name: string, where: ClassType<object>, columns: readonly string[]): ClassType<ListArgs> {
  const Columns = Object.fromEntries(columns.map((column) => [column, column]));
  registerEnumType(Columns, { name: `${name}SortColumn` });

  @InputType(`${name}Sort`)
  class Sort {
    @Field(() => Columns)
    column!: string;

    @Field(() => SortOrder, { nullable: true, defaultValue: SortOrder.asc })
    order?: SortOrder;
  }

  @ArgsType()
  class Args extends PageArgs {
    @Field(() => where, { nullable: true, description: 'Equality filters; an explicit null matches empty values.' })
    where?: object;

    @Field(() => Sort, { nullable: true })
    sort?: Sort;
  }
  return Args;
}
