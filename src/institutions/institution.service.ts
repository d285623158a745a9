import type { RequestContext } from '../context/request-context.js';
import { invalid } from '../errors/domain-error.js';
import { assignPresent, ResourceService } from '../resources/resource.service.js';
import { requireBadgeImage } from '../badges/badge-image-limits.js';
import { Institution, InstitutionStatus } from './institution.entity.js';
import type { InstitutionInput } from './institution.inputs.js';

const SCALARS = ['name', 'country', 'legalName', 'taxId', 'website', 'networkOrganization', 'status', 'isBadgesEnabled', 'badgeImageUuid'] as const;

/** Institutions: the badge rules (enabling badges needs a badge image, within the badge image limits) live here. */
export class InstitutionService extends ResourceService<Institution, InstitutionInput> {
  protected readonly entity = Institution;
  protected readonly label = 'Institution';
  protected readonly defaults: Partial<InstitutionInput> = {
    legalName: null,
    taxId: null,
    website: null,
    networkOrganization: null,
    status: InstitutionStatus.active,
    isBadgesEnabled: false,
    badgeImageUuid: null,
  };

  protected async apply(ctx: RequestContext, row: Institution, input: Partial<InstitutionInput>): Promise<void> {
    if (input.badgeImageUuid != null) await requireBadgeImage(ctx, input.badgeImageUuid, 'badgeImageUuid');
    assignPresent(row, input, SCALARS);
    if (row.isBadgesEnabled && !row.badgeImageUuid) {
      throw invalid({ badgeImageUuid: ['The badge image uuid field is required when badges are enabled.'] });
    }
  }
}

export const institutions = new InstitutionService();
