import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import { ConnectionType } from '../graphql/connection.js';
import { loadOne } from '../graphql/relations.js';
import { Institution } from '../institutions/institution.entity.js';
import { ResourceResolver } from '../resources/resource.resolver.js';
import { CertificateTemplate } from './certificate-template.entity.js';
import { CertificateTemplateInput, CertificateTemplateListArgs, UpdateCertificateTemplateInput } from './certificate-template.inputs.js';
import { certificateTemplates } from './certificate-template.service.js';

@Resolver(() => CertificateTemplate)
export class CertificateTemplateResolver extends ResourceResolver({
  name: 'CertificateTemplate',
  pluralName: 'CertificateTemplates',
  type: CertificateTemplate,
  connection: ConnectionType(CertificateTemplate, 'CertificateTemplate'),
  listArgs: CertificateTemplateListArgs,
  input: CertificateTemplateInput,
  updateInput: UpdateCertificateTemplateInput,
  service: certificateTemplates,
}) {
  @FieldResolver(() => Institution)
  institution(@Root() template: CertificateTemplate, @Ctx() ctx: RequestContext): Promise<Institution> {
    return loadOne(ctx, Institution, template.institution);
  }
}
