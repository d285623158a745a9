import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { Readable, Row } from '../db/rows.js';
import type { Loaded } from '../context/loaders.js';
import type { RequestContext } from '../context/request-context.js';
import { ConnectionType } from '../graphql/connection.js';
import { ResourceResolver } from '../resources/resource.resolver.js';
import { Cohort } from './cohort.entity.js';
import { CohortInput, CohortListArgs, UpdateCohortInput } from './cohort.inputs.js';
import { cohorts } from './cohort.service.js';
import { Course } from './course.entity.js';

@Resolver(() => Cohort)
export class CohortResolver extends ResourceResolver({
  name: 'Cohort',
  pluralName: 'Cohorts',
  type: Cohort,
  connection: ConnectionType(Cohort, 'Cohort'),
  listArgs: CohortListArgs,
  input: CohortInput,
  updateInput: UpdateCohortInput,
  service: cohorts,
}) {
  @FieldResolver(() => Course, { description: 'The course this cohort belongs to.' })
  course(@Root() cohort: Readable<Cohort>, @Ctx() ctx: RequestContext): Loaded<Row<Course>> {
    return ctx.loaders.one(Course, cohort.course);
  }
}
