import type { RequestContext } from '../context/request-context.js';
import type { DocumentDesign } from '../documents/index.js';
import { StoredFile } from '../files/file.entity.js';
import { files } from '../files/file.service.js';
import { PNG } from '../files/file-type.js';
import type { Institution } from '../institutions/institution.entity.js';
import { documentColors } from '../templates/design-config.js';
import type { CertificateTemplate } from '../templates/certificate-template.entity.js';

/** A logo is drawn about 64 points wide; a badge image past this size is left out rather than read into memory. */
const MAX_LOGO_BYTES = 2 * 1024 * 1024;

/**
 * What the certificate's template and institution lend its documents: the template's colours and the
 * institution's badge image as the logo (PNG only: pdf-lib cannot draw SVG, so an SVG badge gives no logo).
 */
export async function documentDesign(tx: RequestContext, institution: Institution, template: CertificateTemplate | null): Promise<DocumentDesign> {
  return { colors: documentColors(template?.designConfig), logo: await badgeImage(tx, institution) };
}

async function badgeImage(tx: RequestContext, institution: Institution): Promise<Uint8Array | null> {
  if (!institution.badgeImageUuid) return null;
  const file = await tx.em.findOne(StoredFile, { uuid: institution.badgeImageUuid });
  if (!file || file.mimeType !== PNG.mimeType || file.size > MAX_LOGO_BYTES) return null;
  return files.read(tx, file);
}
