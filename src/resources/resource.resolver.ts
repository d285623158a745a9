import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, type ClassType, Ctx, ID, Info, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import type { TenantScopedEntity } from '../db/base.entity.js';
import type { Row } from '../db/rows.js';
import { asksForTotal, type Connection, toConnection } from '../graphql/connection.js';
import { selectedFieldNames, selectedNodeFieldNames } from '../graphql/connection.js';
import { lowerFirst } from '../identifier-case.js';
import { registerNodeType } from '../graphql/node.js';
import type { ListArgs, ResourceOperations } from './resource.service.js';

export interface ResourceApi<T extends TenantScopedEntity, Input extends object> {
  /** GraphQL type name, singular and plural: "Institution", "Institutions". */
  name: string;
  pluralName: string;
  type: ClassType<T>;
  connection: ClassType<Connection<T>>;
  listArgs: ClassType<ListArgs>;
  input: ClassType<Input>;
  updateInput: ClassType<Partial<Input>>;
  service: ResourceOperations<T, Input>;
  /** PUT semantics (`replace<Name>`); students have none. */
  replaceable?: boolean;
  /**
   * For nested collections (module groups under a course): an optional argument naming the parent;
   * when given, a row under another parent is NOT_FOUND.
   */
  parentArg?: string;
}

/** Applies decorators by hand so the argument list can depend on the resource (parent guard, PUT). */
type ParamDecorator = (target: object, method: string, index: number) => void;

function define(target: object, method: string, decorator: MethodDecorator, ...params: ParamDecorator[]): void {
  params.forEach((param, index) => param(target, method, index));
  decorator(target, method, Object.getOwnPropertyDescriptor(target, method)!);
}

/**
 * The queries and mutations every catalogue resource has, named as CONTRACT.md lists them:
 * `x(uuid)`, `xs(where, sort, first, after)`, `createX`, `updateX` (PATCH), `replaceX` (PUT),
 * `deleteX`, `deleteXs`. Domain resolvers extend it and add their relation fields.
 */
export function ResourceResolver<T extends TenantScopedEntity, Input extends object>(api: ResourceApi<T, Input>) {
  const { name, pluralName, type, service, parentArg } = api;

  @Resolver(() => type)
  abstract class BaseResourceResolver {
    one(uuid: string, ctx: RequestContext, info: GraphQLResolveInfo, parent?: string): Promise<Row<T>> {
      return service.getRow(ctx, uuid, parent, selectedFieldNames(info));
    }

    async many(args: ListArgs, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Connection<Row<T>>> {
      return toConnection(await service.list(ctx, { ...args, withTotal: asksForTotal(info), selected: selectedNodeFieldNames(info) }));
    }

    create(input: Input, ctx: RequestContext): Promise<T> {
      return service.create(ctx, input);
    }

    update(uuid: string, input: Partial<Input>, ctx: RequestContext, parent?: string): Promise<T> {
      return service.update(ctx, uuid, input, parent);
    }

    replace(uuid: string, input: Input, ctx: RequestContext, parent?: string): Promise<T> {
      return service.replace(ctx, uuid, input, parent);
    }

    delete(uuid: string, ctx: RequestContext, parent?: string): Promise<boolean> {
      return service.delete(ctx, uuid, parent);
    }

    deleteMany(uuids: string[], ctx: RequestContext, parent?: string): Promise<number> {
      return service.deleteMany(ctx, uuids, parent);
    }
  }

  registerNodeType(name, (ctx, uuid) => service.get(ctx, uuid));
  const proto = BaseResourceResolver.prototype;
  const uuidArg = Arg('uuid', () => ID, { description: `The ${name}'s uuid.` });
  const guard = parentArg ? [Arg(parentArg, () => ID, { nullable: true, description: 'When given, the row must belong to this parent.' })] : [];
  define(
    proto,
    'one',
    Query(() => type, {
      name: lowerFirst(name),
      nullable: true,
      description: `One ${name} of this tenant by uuid; null with a NOT_FOUND error when there is none.`,
    }),
    uuidArg,
    Ctx(),
    Info(),
    ...guard,
  );
  define(
    proto,
    'many',
    Query(() => api.connection, { name: lowerFirst(pluralName), description: `${pluralName} of this tenant, filtered, sorted and paged.` }),
    Args(() => api.listArgs),
    Ctx(),
    Info(),
  );
  define(
    proto,
    'create',
    Mutation(() => type, { name: `create${name}`, description: `Creates a ${name} in this tenant.` }),
    Arg('input', () => api.input, { description: 'Every required field; optional ones take their defaults.' }),
    Ctx(),
  );
  define(
    proto,
    'update',
    Mutation(() => type, { name: `update${name}`, description: 'Changes only the fields sent (PATCH).' }),
    uuidArg,
    Arg('input', () => api.updateInput, { description: 'Only the fields to change.' }),
    Ctx(),
    ...guard,
  );
  if (api.replaceable !== false) {
    define(
      proto,
      'replace',
      Mutation(() => type, { name: `replace${name}`, description: 'Replaces every field (PUT): optional fields not sent return to their defaults.' }),
      uuidArg,
      Arg('input', () => api.input, { description: 'Every field; optional ones not sent return to their defaults.' }),
      Ctx(),
      ...guard,
    );
  }
  define(
    proto,
    'delete',
    Mutation(() => Boolean, { name: `delete${name}`, description: 'Soft delete.' }),
    uuidArg,
    Ctx(),
    ...guard,
  );
  define(
    proto,
    'deleteMany',
    Mutation(() => Int, { name: `delete${pluralName}`, description: 'Soft-deletes all of them or, if any uuid is unknown, none.' }),
    Arg('uuids', () => [ID], { description: `The uuids of the ${pluralName} to delete.` }),
    Ctx(),
    ...guard,
  );
  return BaseResourceResolver;
}
