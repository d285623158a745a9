import { LIVE_FILTER } from '../db/tenant-scope.js';
import type { RequestContext } from '../context/request-context.js';
import { Certificate, CertificateStatus } from '../certificates/certificate.entity.js';
import { conflict, invalid, type FieldErrors } from '../errors/domain-error.js';
import { Institution } from '../institutions/institution.entity.js';
import { declareReferences } from '../resources/references.js';
import { assignPresent, type Relation, ResourceService, type WriteMode } from '../resources/resource.service.js';
import { CertificateTemplate, TemplateStatus } from './certificate-template.entity.js';
import { type CertificateTemplateInput, UpdateCertificateTemplateInput } from './certificate-template.inputs.js';
import { designConfigErrors } from './design-config.js';
import { layoutFileErrors } from './layout-file-checks.js';
import { layoutFileReferences } from './layout-files.js';
import { previewPath } from './preview-path.js';
import { hasLayout, namedFileUuid, readLayout } from './template-layout.js';
import { canonicalJson } from './canonical-json.js';

/** What a certificate was drawn from: frozen once one is issued (a new version is a new template). */
const FROZEN_FIELDS = ['designConfig', 'path', 'version'] as const;

/** The institution a template belongs to. */
const RELATIONS = declareReferences<Relation<CertificateTemplate, CertificateTemplateInput>>(UpdateCertificateTemplateInput, [
  { property: 'institution', entity: Institution, field: 'institutionUuid' },
]);

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

  protected async apply(ctx: RequestContext, row: CertificateTemplate, input: Partial<CertificateTemplateInput>, mode: WriteMode): Promise<void> {
    await this.relateAll(ctx, row, input, RELATIONS);
    // `files/{uuid}` is stored in one spelling, the one the file holders look for.
    const pathFile = namedFileUuid(input.path);
    if (pathFile) input = { ...input, path: `files/${pathFile}` };
    await this.checkDesign(ctx, input);
    if (mode !== 'create') await this.refuseFrozenChange(ctx, row, input);
    assignPresent(row, input, ['name', 'version', 'path', 'previewImagePath', 'designConfig', 'isDefault', 'status']);
    // A layout is its own preview: unless the client names another picture, the path points at the drawn one.
    if ('designConfig' in input && !input.previewImagePath) {
      const drawn = previewPath(row.uuid);
      if (hasLayout(input.designConfig)) row.previewImagePath = drawn;
      else if (row.previewImagePath === drawn) row.previewImagePath = null;
    }
    if (row.isDefault) {
      await ctx.em.nativeUpdate(CertificateTemplate, { institution: row.institution, isDefault: true, uuid: { $ne: row.uuid } }, { isDefault: false });
    }
  }

  /** The template a certificate of this institution gets when it names none. */
  findDefault(ctx: RequestContext, institutionUuid: string): Promise<CertificateTemplate | null> {
    return ctx.em.findOne(CertificateTemplate, { institution: institutionUuid, isDefault: true, status: TemplateStatus.active });
  }

  /**
   * Every problem of a design at once, by path: colours, the layout, the files it draws, and the
   * template document when `path` names an uploaded file (`files/{uuid}`: layout-file-checks.ts).
   */
  private async checkDesign(ctx: RequestContext, input: Partial<CertificateTemplateInput>): Promise<void> {
    const config = input.designConfig;
    const colours = designConfigErrors(config);
    const { layout, errors } = readLayout(config);
    const pathFile = namedFileUuid(input.path);
    const references = [
      ...(layout ? layoutFileReferences(layout) : []),
      ...(pathFile ? [{ fileUuid: pathFile, path: 'path', kind: 'background' as const }] : []),
    ];
    const all: FieldErrors = { ...(colours.length > 0 ? { designConfig: colours } : {}), ...errors, ...(await layoutFileErrors(ctx, references)) };
    if (Object.keys(all).length > 0) throw invalid(all);
  }

  /** 409 when the write changes what an issued certificate was drawn from; the same values again are fine. */
  private async refuseFrozenChange(ctx: RequestContext, row: CertificateTemplate, input: Partial<CertificateTemplateInput>): Promise<void> {
    if (!FROZEN_FIELDS.some((field) => field in input)) return;
    await ctx.em.populate(row, ['designConfig']);
    const changed = FROZEN_FIELDS.filter((field) =>
      field === 'designConfig'
        ? canonicalJson(input.designConfig ?? null) !== canonicalJson(row.designConfig ?? null)
        : field in input && input[field] !== row[field],
    );
    if (changed.length === 0) return;
    const used = await ctx.em.count(Certificate, { template: row, status: { $ne: CertificateStatus.draft } }, { filters: { [LIVE_FILTER]: false } });
    if (used > 0) {
      throw conflict(
        `The template version ${row.version} is frozen: ${used} certificate(s) were issued from it. Create a new template (a new version) to change its design, path or version.`,
      );
    }
  }
}

export const certificateTemplates = new CertificateTemplateService();
