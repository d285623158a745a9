import { Resolver } from 'type-graphql';
import { ConnectionType } from '../graphql/connection.js';
import { ResourceResolver } from '../resources/resource.resolver.js';
import { Institution } from './institution.entity.js';
import { InstitutionInput, InstitutionListArgs, UpdateInstitutionInput } from './institution.inputs.js';
import { institutions } from './institution.service.js';

const InstitutionConnection = ConnectionType(Institution, 'Institution');

@Resolver(() => Institution)
export class InstitutionResolver extends ResourceResolver({
  name: 'Institution',
  pluralName: 'Institutions',
  type: Institution,
  connection: InstitutionConnection,
  listArgs: InstitutionListArgs,
  input: InstitutionInput,
  updateInput: UpdateInstitutionInput,
  service: institutions,
}) {}
