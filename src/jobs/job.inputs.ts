import { Field, InputType } from 'type-graphql';
import { ListArgsType } from '../graphql/connection.js';
import { JobStatus } from './job.entity.js';

@InputType({ description: 'Equality filters on jobs.' })
export class JobWhere {
  @Field(() => JobStatus, { nullable: true, description: 'Only jobs in this status.' })
  status?: JobStatus;

  @Field({ nullable: true, description: 'Only jobs of this kind (`certificates.batch`).' })
  kind?: string;
}

export const JobListArgs = ListArgsType('Job', JobWhere, ['created_at', 'finished_at']);
