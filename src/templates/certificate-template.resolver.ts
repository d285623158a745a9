import { GraphQLJSONObject } from 'graphql-scalars';
import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { Readable, Row } from '../db/rows.js';
import type { Loaded } from '../context/loaders.js';
import type { RequestContext } from '../context/request-context.js';
import { ConnectionType } from '../graphql/connection.js';
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
  @FieldResolver(() => Institution, { description: 'The institution that owns the template.' })
  institution(@Root() template: Readable<CertificateTemplate>, @Ctx() ctx: RequestContext): Loaded<Row<Institution>> {
    return ctx.loaders.one(Institution, template.institution);
  }

  /** Read on its own (a lazy column), within the answer's byte budget: see db/rows.ts. */
  @FieldResolver(() => GraphQLJSONObject, { nullable: true, description: 'Design-tool configuration, stored as given.' })
  designConfig(@Root() template: Readable<CertificateTemplate>, @Ctx() ctx: RequestContext): unknown {
    if (template.designConfig !== undefined) return template.designConfig;
    return ctx.loaders.lazyJson(CertificateTemplate, 'designConfig', template.uuid, template.designConfigBytes);
  }
}
