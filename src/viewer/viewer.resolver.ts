import { Ctx, Field, ObjectType, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';

@ObjectType({ simpleResolvers: true, description: 'The tenant a request acts for.' })
class TenantInfo {
  @Field({ description: 'The value to send as X-Tenant.' })
  identifier!: string;

  @Field({ description: 'Display name.' })
  name!: string;
}

@ObjectType({ simpleResolvers: true, description: 'Who the current access token speaks for.' })
export class Viewer {
  @Field({ description: 'The OAuth client id of the token.' })
  clientId!: string;

  @Field(() => TenantInfo, { description: 'The tenant of the token.' })
  tenant!: TenantInfo;
}

@Resolver()
export class ViewerResolver {
  @Query(() => Viewer, { description: 'The client and tenant of the current access token.' })
  viewer(@Ctx() ctx: RequestContext): Viewer {
    return { clientId: ctx.principal.clientId, tenant: { identifier: ctx.tenant.identifier, name: ctx.tenant.name } };
  }
}
