import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { Readable, Row } from '../db/rows.js';
import type { Loaded } from '../context/loaders.js';
import type { RequestContext } from '../context/request-context.js';
import { ConnectionType } from '../graphql/connection.js';
import { ResourceResolver } from '../resources/resource.resolver.js';
import { Course } from './course.entity.js';
import { ModuleGroup } from './module-group.entity.js';
import { ModuleGroupInput, ModuleGroupListArgs, UpdateModuleGroupInput } from './module-group.inputs.js';
import { moduleGroups } from './module-group.service.js';

@Resolver(() => ModuleGroup)
export class ModuleGroupResolver extends ResourceResolver({
  name: 'ModuleGroup',
  pluralName: 'ModuleGroups',
  type: ModuleGroup,
  connection: ConnectionType(ModuleGroup, 'ModuleGroup'),
  listArgs: ModuleGroupListArgs,
  input: ModuleGroupInput,
  updateInput: UpdateModuleGroupInput,
  service: moduleGroups,
  parentArg: 'courseUuid',
}) {
  @FieldResolver(() => Course, { description: 'The course this group belongs to.' })
  course(@Root() group: Readable<ModuleGroup>, @Ctx() ctx: RequestContext): Loaded<Row<Course>> {
    return ctx.loaders.one(Course, group.course);
  }
}
