import { Arg, Args, type ClassType, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import type { TenantScopedEntity } from '../db/base.entity.js';
import { type Connection, toConnection } from '../graphql/connection.js';
import type { ListArgs, ResourceService } from './resource.service.js';

export interface ResourceApi<T extends TenantScopedEntity, Input extends object> {
  /** GraphQL type name, singular and plural: "Institution", "Institutions". */
  name: string;
  pluralName: string;
  type: ClassType<T>;
  connection: ClassType<Connection<T>>;
  listArgs: ClassType<ListArgs>;
  input: ClassType<Input>;
  updateInput: ClassType<Partial<Input>>;
  service: ResourceService<T, Input>;
  /** PUT semantics (`replace<Name>`); students have none. */
  replaceable?: boolean;
}

const lowerFirst = (name: string) => name[0]!.toLowerCase() + name.slice(1);

/**
 * The queries and mutations every catalogue resource has, named as CONTRACT.md lists them:
 * `x(uuid)`, `xs(where, sort, first, after)`, `createX`, `updateX` (PATCH), `replaceX` (PUT),
 * `deleteX`, `deleteXs`. Domain resolvers extend it and add their relation fields.
 */
export function ResourceResolver<T extends TenantScopedEntity, Input extends object>(api: ResourceApi<T, Input>) {
  const { name, pluralName, type, service } = api;

  @Resolver(() => type)
  abstract class BaseResourceResolver {
    @Query(() => type, { name: lowerFirst(name), description: `One ${name} of this tenant by uuid.` })
    one(@Arg('uuid', () => ID) uuid: string, @Ctx() ctx: RequestContext): Promise<T> {
      return service.get(ctx, uuid);
    }

    @Query(() => api.connection, { name: lowerFirst(pluralName), description: `${pluralName} of this tenant, filtered, sorted and paged.` })
    async many(@Args(() => api.listArgs) args: ListArgs, @Ctx() ctx: RequestContext): Promise<Connection<T>> {
      return toConnection(await service.list(ctx, args));
    }

    @Mutation(() => type, { name: `create${name}` })
    create(@Arg('input', () => api.input) input: Input, @Ctx() ctx: RequestContext): Promise<T> {
      return service.create(ctx, input);
    }

    @Mutation(() => type, { name: `update${name}`, description: 'Changes only the fields sent (PATCH).' })
    update(@Arg('uuid', () => ID) uuid: string, @Arg('input', () => api.updateInput) input: Partial<Input>, @Ctx() ctx: RequestContext): Promise<T> {
      return service.update(ctx, uuid, input);
    }

    @Mutation(() => Boolean, { name: `delete${name}`, description: 'Soft delete.' })
    delete(@Arg('uuid', () => ID) uuid: string, @Ctx() ctx: RequestContext): Promise<boolean> {
      return service.delete(ctx, uuid);
    }

    @Mutation(() => Int, { name: `delete${pluralName}`, description: 'Soft-deletes all of them or, if any uuid is unknown, none.' })
    deleteMany(@Arg('uuids', () => [ID]) uuids: string[], @Ctx() ctx: RequestContext): Promise<number> {
      return service.deleteMany(ctx, uuids);
    }
  }

  if (api.replaceable === false) return BaseResourceResolver;

  @Resolver(() => type)
  abstract class ReplaceableResourceResolver extends BaseResourceResolver {
    @Mutation(() => type, { name: `replace${name}`, description: 'Replaces every field (PUT): optional fields not sent return to their defaults.' })
    replace(@Arg('uuid', () => ID) uuid: string, @Arg('input', () => api.input) input: Input, @Ctx() ctx: RequestContext): Promise<T> {
      return service.replace(ctx, uuid, input);
    }
  }
  return ReplaceableResourceResolver;
}
