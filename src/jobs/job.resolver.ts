import { Arg, Ctx, FieldResolver, ID, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import { Job } from './job.entity.js';
import { jobs } from './job.service.js';
import { itemResultView, type JobItemResult, JobItemResult as JobItemResultType, type StoredItemResult } from './job.views.js';

@Resolver(() => Job)
export class JobResolver {
  @Query(() => Job, { description: 'A job of this tenant (a certificate batch) and its progress.' })
  job(@Arg('uuid', () => ID, { description: 'The job’s uuid.' }) uuid: string, @Ctx() ctx: RequestContext): Promise<Job> {
    return jobs.get(ctx, uuid);
  }

  @FieldResolver(() => [JobItemResultType], { description: 'One result per item processed so far, in item order; all of them once `completed`.' })
  results(@Root() job: Job): JobItemResult[] {
    return (job.results as StoredItemResult[]).map(itemResultView);
  }
}
