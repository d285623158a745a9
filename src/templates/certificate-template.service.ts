import type { RequestContext } from '../context/request-context.js';
import { invalid } from '../errors/domain-error.js';
import { Institution } from '../institutions/institution.entity.js';
import { assignPresent, ResourceService } from '../resources/resource.service.js';
import { CertificateTemplate, TemplateStatus } from './certificate-template.entity.js';
import type { CertificateTemplateInput } from './certificate-template.inputs.js';
import { designConfigErrors } from './design-config.js';

/** Certificate templates: making one the default clears the flag on the institution's others. */
export class CertificateTemplateService extends ResourceService<CertificateTemplate, CertificateTemplateInput> {
  protected readonly entity = CertificateTemplate;
  protected readonly label = 'Certificate template';
  protected readonly defaults: Partial<CertificateTemplateInput> = {
    previewImagePath: null,
    designConfig: null,
    isDefault: false,
    status: TemplateStatus.active,
  };
  protected readonly whereColumns = { institutionUuid: 'institution' };
  protected readonly uuidWhereFields = ['institutionUuid'];
  protected readonly uniqueViolations = {
    certificate_templates_default_unique: { isDefault: ['Another template of this institution was made the default at the same time; try again.'] },
  };

  protected async apply(ctx: RequestContext, row: CertificateTemplate, input: Partial<CertificateTemplateInput>): Promise<void> {
    await this.relate(ctx, row, 'institution', Institution, input, 'institutionUuid');
    const designErrors = designConfigErrors(input.designConfig);
    if (designErrors.length > 0) throw invalid({ designConfig: designErrors });
    assignPresent(row, input, ['name', 'version', 'path', 'previewImagePath', 'designConfig', 'isDefault', 'status']);
    if (row.isDefault) {
      await ctx.em.nativeUpdate(CertificateTemplate, { institution: row.institution, isDefault: true, uuid: { $ne: row.uuid } }, { isDefault: false });
    }
  }

  /** The template a certificate of this institution gets when it names none. */
  findDefault(ctx: RequestContext, institutionUuid: string): Promise<CertificateTemplate | null> {
    return ctx.em.findOne(CertificateTemplate, { institution: institutionUuid, isDefault: true, status: TemplateStatus.active });
  }
}

export const certificateTemplates = new CertificateTemplateService();
