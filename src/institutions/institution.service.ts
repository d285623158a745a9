import type { RequestContext } from '../context/request-context.js';
import { type FieldErrors, invalid } from '../errors/domain-error.js';
import { assignPresent, ResourceService } from '../resources/resource.service.js';
import { requireBadgeImage } from '../badges/badge-image-limits.js';
import { revokeAllStatuses } from '../badges/v3/open-badges-v3.repository.js';
import { externalIdViolation } from '../resources/external-id.js';
import { Institution, InstitutionStatus } from './institution.entity.js';
import type { InstitutionInput } from './institution.inputs.js';

const SCALARS = [
  'name',
  'country',
  'legalName',
  'taxId',
  'website',
  'email',
  'networkOrganization',
  'status',
  'isBadgesEnabled',
  'isGradePublic',
  'isWalletPinRequired',
  'badgeImageUuid',
] as const;

/** Institutions: the badge rules (enabling badges needs a badge image within the badge image limits, and a contact e-mail) live here. */
export class InstitutionService extends ResourceService<Institution, InstitutionInput> {
  protected readonly entity = Institution;
  protected readonly label = 'Institution';
  protected readonly defaults: Partial<InstitutionInput> = {
    legalName: null,
    taxId: null,
    website: null,
    email: null,
    networkOrganization: null,
    status: InstitutionStatus.active,
    isBadgesEnabled: false,
    isGradePublic: false,
    isWalletPinRequired: false,
    badgeImageUuid: null,
    externalId: null,
  };
  protected readonly uniqueViolations = externalIdViolation('institutions');

  protected async apply(ctx: RequestContext, row: Institution, input: Partial<InstitutionInput>): Promise<void> {
    if (input.badgeImageUuid != null) await requireBadgeImage(ctx, input.badgeImageUuid, 'badgeImageUuid');
    assignPresent(row, input, SCALARS);
    await this.applyExternalId(ctx, row, input);
    if (!row.isBadgesEnabled) return;
    const errors: FieldErrors = {};
    if (!row.badgeImageUuid) errors.badgeImageUuid = ['The badge image uuid field is required when badges are enabled.'];
    // Open Badges 2.0 requires the issuer's email (validator-core refuses a profile without one).
    if (!row.email) errors.email = ['The email field is required when badges are enabled.'];
    if (Object.keys(errors).length > 0) throw invalid(errors);
  }

  /** Deleting an institution withdraws its certificates publicly (public-standing.ts): every Open Badges 3.0 status bit is set. */
  protected async beforeDelete(tx: RequestContext, rows: Institution[]): Promise<void> {
    for (const row of rows) await revokeAllStatuses(tx.em, row.uuid);
  }
}

export const institutions = new InstitutionService();
