import { type Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { LiveFilterIndexes, TenantScopedEntity } from '../db/base.entity.js';

export enum JobStatus {
  queued = 'queued',
  running = 'running',
  completed = 'completed',
}

registerEnumType(JobStatus, {
  name: 'JobStatus',
  valuesConfig: {
    queued: { description: 'Waiting for a job worker.' },
    running: { description: 'A worker (or the request) is issuing its items.' },
    completed: { description: 'Every item has its result.' },
  },
  description: 'queued → running → completed; a job whose worker stopped is picked up again where it left off.',
});

/**
 * Background work of one tenant (a long certificate batch), run by the job queue's task of its kind
 * under a lease so a job survives restarts: `payload` holds what to do, `results` what came of each item so far.
 */
@ObjectType({ description: 'Background work (a long certificate batch) and its progress.' })
@Entity({
  tableName: 'jobs',
  // Queued, or handed back (its lease given back: a stopping worker, or one that died), the job gets
  // its queue job, in the same transaction; a job its request runs itself gets one only if handed back.
  triggers: [
    {
      name: 'schedule_job',
      timing: 'after',
      events: ['insert', 'update'],
      forEach: 'row',
      body: `if new.status <> 'completed' and new.deleted_at is null and new.locked_until is null and (tg_op = 'INSERT' or old.locked_until is not null) then
          perform graphile_worker.add_job(new.kind, json_build_object('uuid', new.uuid), job_key := 'job:' || new.uuid);
        end if;
        return null;`,
    },
  ],
})
@Index({ name: 'jobs_status_index', properties: ['status', 'createdAt'] })
@LiveFilterIndexes('jobs', ['kind', 'finished_at', 'updated_at'])
export class Job extends TenantScopedEntity {
  @Field({ description: 'What the job does, e.g. `certificates.batch`.' })
  @Property({ length: 64 })
  kind!: string;

  @Field(() => JobStatus, { description: 'Where the job is: queued, running or completed.' })
  @Enum({ items: () => JobStatus, nativeEnumName: 'job_status' })
  status: JobStatus & Opt = JobStatus.queued;

  @Field(() => Int, { description: 'Items in the job.' })
  @Property({ type: 'integer' })
  total!: number;

  @Field(() => Int, { description: 'Items done successfully so far.' })
  @Property({ type: 'integer' })
  done: number & Opt = 0;

  @Field(() => Int, { description: 'Items that failed so far.' })
  @Property({ type: 'integer' })
  failed: number & Opt = 0;

  /** The client that asked for it: the worker acts as that client. */
  @Property({ length: 255, hidden: true })
  clientId!: string;

  /** The work itself (certificate inputs with their pre-assigned uuids); internal. */
  @Property({ type: 'jsonb', hidden: true, lazy: true })
  payload!: unknown;

  /** One result per processed item, in item order; exposed by the kind's resolver. */
  @Property({ type: 'jsonb', hidden: true })
  results: unknown[] & Opt = [];

  /** While in the future, a worker holds this job; once past, another may take it over. */
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true, hidden: true })
  lockedUntil?: Date | null;

  @Field(() => Date, { nullable: true, description: 'When the last item was done; null until then.' })
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  finishedAt?: Date | null;
}
