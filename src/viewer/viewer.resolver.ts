import { Ctx, Field, ObjectType, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';

@ObjectType({ simpleResolvers: true, description: 'The tenant a request acts for.' })
class TenantInfo {
  @Field()
  identifier!: string;

  @Field()
  name!: string;
}

@ObjectType({ simpleResolvers: true, description: 'Who the current access token speaks for.' })
export class Viewer {
  @Field()
  clientId!: string;

  @Field(() => TenantInfo)
  tenant!: TenantInfo;
}

@Resolver()
export class ViewerResolver {
  @Query(() => Viewer, { description: 'The client and tenant of the current access token.' })
  viewer(@Ctx() ctx: RequestContext): Viewer {
    return { clientId: ctx.principal.clientId, tenant: { identifier: ctx.tenant.identifier, name: ctx.tenant.name } };
  }
}
