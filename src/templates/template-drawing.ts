import type { LayoutDrawing, LayoutFile } from '../documents/index.js';
import { StoredFile } from '../files/file.entity.js';
import { files, type FileContext } from '../files/file.service.js';
import type { CertificateTemplate } from './certificate-template.entity.js';
import { layoutFileReferences } from './layout-files.js';
import { fillPlaceholders, type PlaceholderValues } from './placeholders.js';
import { readLayout } from './template-layout.js';

/**
 * The page a template draws for one certificate (or a preview): its layout with the placeholders
 * filled and the files it draws read from storage. Null when the template has no layout. The
 * template's `designConfig` must be populated (a lazy column: db/rows.ts).
 */
export async function templateDrawing(
  ctx: FileContext,
  template: CertificateTemplate,
  values: PlaceholderValues,
  verificationUrl: string,
): Promise<LayoutDrawing | null> {
  const { layout } = readLayout(template.designConfig, template.path);
  if (!layout) return null;
  const drawn: Record<string, LayoutFile> = {};
  for (const { fileUuid } of layoutFileReferences(layout)) {
    // A file a live template draws cannot be deleted (files/file-holders.ts); a deleted template's may be gone.
    const file = await ctx.em.findOne(StoredFile, { uuid: fileUuid });
    if (!file) continue;
    const cacheKey = `${file.tenant.uuid}/${file.uuid}/${file.hash}`;
    drawn[fileUuid] = { mimeType: file.mimeType as LayoutFile['mimeType'], bytes: await files.read(ctx, file), cacheKey };
  }
  const elements = layout.elements.map((element) => (element.type === 'text' ? { ...element, text: fillPlaceholders(element.text, values) } : element));
  return { layout: { ...layout, elements }, files: drawn, verificationUrl };
}
