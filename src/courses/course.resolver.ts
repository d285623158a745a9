import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Resolver, Root } from 'type-graphql';
import type { Readable, Row } from '../db/rows.js';
import type { Loaded } from '../context/loaders.js';
import type { RequestContext } from '../context/request-context.js';
import { ConnectionType, RelationArgs } from '../graphql/connection.js';
import { Institution } from '../institutions/institution.entity.js';
import { Module } from '../modules/module.entity.js';
import { ResourceResolver } from '../resources/resource.resolver.js';
import { CourseModule, DISPLAY_RANK } from './course-module.entity.js';
import { Course } from './course.entity.js';
import { CourseInput, CourseListArgs, ModuleAttachmentInput, UpdateCourseInput } from './course.inputs.js';
import { courses } from './course.service.js';
import { ModuleGroup } from './module-group.entity.js';
import { compareAttachments } from './module-order.js';

@Resolver(() => Course)
export class CourseResolver extends ResourceResolver({
  name: 'Course',
  pluralName: 'Courses',
  type: Course,
  connection: ConnectionType(Course, 'Course'),
  listArgs: CourseListArgs,
  input: CourseInput,
  updateInput: UpdateCourseInput,
  service: courses,
}) {
  @FieldResolver(() => Institution, { description: 'The institution offering the course.' })
  institution(@Root() course: Readable<Course>, @Ctx() ctx: RequestContext): Loaded<Row<Institution>> {
    return ctx.loaders.one(Institution, course.institution);
  }

  @FieldResolver(() => [CourseModule], { description: 'Attached modules by group order, then position.' })
  async modules(@Root() course: Readable<Course>, @Args() { first }: RelationArgs, @Ctx() ctx: RequestContext): Promise<Row<CourseModule>[]> {
    const attachments = await ctx.loaders.manyBy(CourseModule, 'course', first, {}, DISPLAY_RANK).load(course.uuid);
    const groups = await Promise.all(attachments.map((row) => ctx.loaders.optional(ModuleGroup, row.group)));
    return attachments
      .map((row, index) => ({ row, group: groups[index] ?? null, order: row.order }))
      .sort(compareAttachments)
      .map(({ row }) => row);
  }

  @FieldResolver(() => [ModuleGroup], { description: "The course's module groups, in order." })
  moduleGroups(@Root() course: Readable<Course>, @Args() { first }: RelationArgs, @Ctx() ctx: RequestContext): Promise<Row<ModuleGroup>[]> {
    return ctx.loaders.manyBy(ModuleGroup, 'course', first, { order: 'asc' }).load(course.uuid);
  }

  @Mutation(() => Course, { description: 'Attaches modules (or moves attached ones) into groups and positions of the course.' })
  attachModulesToCourse(
    @Arg('courseUuid', () => ID, { description: 'The course’s uuid.' }) courseUuid: string,
    @Arg('modules', () => [ModuleAttachmentInput], { description: 'The modules to attach, with their group and position.' })
    attachments: ModuleAttachmentInput[],
    @Ctx() ctx: RequestContext,
  ): Promise<Course> {
    return courses.attachModules(ctx, courseUuid, attachments);
  }

  @Mutation(() => Course, { description: 'Detaches modules from the course; the modules themselves stay.' })
  detachModulesFromCourse(
    @Arg('courseUuid', () => ID, { description: 'The course’s uuid.' }) courseUuid: string,
    @Arg('moduleUuids', () => [ID], { description: 'The uuids of the modules to detach.' }) moduleUuids: string[],
    @Ctx() ctx: RequestContext,
  ): Promise<Course> {
    return courses.detachModules(ctx, courseUuid, moduleUuids);
  }
}

@Resolver(() => CourseModule)
export class CourseModuleResolver {
  @FieldResolver(() => Module, { description: 'The attached module.' })
  module(@Root() attachment: Readable<CourseModule>, @Ctx() ctx: RequestContext): Loaded<Row<Module>> {
    return ctx.loaders.one(Module, attachment.module);
  }

  @FieldResolver(() => ModuleGroup, { nullable: true, description: 'The group it is listed under on the transcript, if any.' })
  group(@Root() attachment: Readable<CourseModule>, @Ctx() ctx: RequestContext): Loaded<Row<ModuleGroup> | null> {
    return ctx.loaders.optional(ModuleGroup, attachment.group);
  }
}
