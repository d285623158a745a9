import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Ctx, FieldResolver, ID, Info, Query, Resolver, Root } from 'type-graphql';
import type { Row } from '../db/rows.js';
import { asksForTotal, type Connection, ConnectionType, toConnection } from '../graphql/connection.js';
import { selectedNodeFieldNames } from '../graphql/connection.js';
import type { ListArgs } from '../resources/resource.service.js';
import { JobListArgs } from './job.inputs.js';
import type { RequestContext } from '../context/request-context.js';
import { Job } from './job.entity.js';
import { jobs } from './job.service.js';
import { itemResultView, type JobItemResult, JobItemResult as JobItemResultType, type StoredItemResult } from './job.views.js';

const JobConnection = ConnectionType(Job, 'Job');

@Resolver(() => Job)
export class JobResolver {
  @Query(() => Job, { description: 'A job of this tenant (a certificate batch) and its progress.' })
  job(@Arg('uuid', () => ID, { description: 'The job’s uuid.' }) uuid: string, @Ctx() ctx: RequestContext): Promise<Job> {
    return jobs.get(ctx, uuid);
  }

  @Query(() => JobConnection, { description: 'Jobs of this tenant (certificate batches), filtered by status, sorted and paged.' })
  async jobs(@Args(() => JobListArgs) args: ListArgs, @Ctx() ctx: RequestContext, @Info() info: GraphQLResolveInfo): Promise<Connection<Row<Job>>> {
    return toConnection(await jobs.list(ctx, { ...args, withTotal: asksForTotal(info), selected: selectedNodeFieldNames(info) }));
  }

  @FieldResolver(() => [JobItemResultType], { description: 'One result per item processed so far, in item order; all of them once `completed`.' })
  results(@Root() job: Job): JobItemResult[] {
    return (job.results as StoredItemResult[]).map(itemResultView);
  }
}
