import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { Readable, Row } from '../db/rows.js';
import type { Loaded } from '../context/loaders.js';
import type { RequestContext } from '../context/request-context.js';
import { ConnectionType } from '../graphql/connection.js';
import { Institution } from '../institutions/institution.entity.js';
import { ResourceResolver } from '../resources/resource.resolver.js';
import { Module } from './module.entity.js';
import { ModuleInput, ModuleListArgs, UpdateModuleInput } from './module.inputs.js';
import { modules } from './module.service.js';

@Resolver(() => Module)
export class ModuleResolver extends ResourceResolver({
  name: 'Module',
  pluralName: 'Modules',
  type: Module,
  connection: ConnectionType(Module, 'Module'),
  listArgs: ModuleListArgs,
  input: ModuleInput,
  updateInput: UpdateModuleInput,
  service: modules,
}) {
  @FieldResolver(() => Institution, { description: 'The institution that teaches the module.' })
  institution(@Root() module: Readable<Module>, @Ctx() ctx: RequestContext): Loaded<Row<Institution>> {
    return ctx.loaders.one(Institution, module.institution);
  }
}
