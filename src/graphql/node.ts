import 'reflect-metadata';
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Field, FieldResolver, ID, Info, InterfaceType, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import { notFound } from '../errors/domain-error.js';

/** Relay's object identification: every tenant record answers a global id that `node(id:)` fetches again. */
@InterfaceType({ description: 'A record with a global id (Relay object identification); `node(id:)` fetches it again.' })
export abstract class Node {
  @Field(() => ID, { description: 'Global id: the type name and the uuid, base64url-encoded. Opaque; use `uuid` with the REST API.' })
  id!: string;
}

/** `Institution` + uuid → an opaque id, Relay-style (base64 of `Type:id`). */
export function toGlobalId(typeName: string, uuid: string): string {
  return Buffer.from(`${typeName}:${uuid}`).toString('base64url');
}

export function fromGlobalId(id: string): { typeName: string; uuid: string } | undefined {
  const match = /^([A-Za-z]{1,64}):([0-9a-f-]{36})$/.exec(Buffer.from(id, 'base64url').toString());
  return match ? { typeName: match[1]!, uuid: match[2]! } : undefined;
}

type Fetch = (ctx: RequestContext, uuid: string) => Promise<object>;

/** How each node type is read in the request's tenant: registered once per type, when its resolver is defined. */
const fetchers = new Map<string, Fetch>();

export function registerNodeType(typeName: string, fetch: Fetch): void {
  fetchers.set(typeName, fetch);
}

@Resolver(() => Node)
export class NodeResolver {
  @FieldResolver(() => ID, { description: 'Global id: the type name and the uuid, base64url-encoded.' })
  id(@Root() record: { uuid: string }, @Info() info: GraphQLResolveInfo): string {
    return toGlobalId(info.parentType.name, record.uuid);
  }

  @Query(() => Node, { nullable: true, description: 'Any record of this tenant by its global id; null with a NOT_FOUND error when there is none.' })
  node(@Arg('id', () => ID, { description: 'A global id, as `id` answers it.' }) id: string, @Ctx() ctx: RequestContext): Promise<object> {
    const parsed = fromGlobalId(id);
    const fetch = parsed && fetchers.get(parsed.typeName);
    if (!parsed || !fetch) throw notFound('Node');
    return fetch(ctx, parsed.uuid);
  }
}
