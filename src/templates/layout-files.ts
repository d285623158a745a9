import { type FileType, JPEG, OTF, PDF, PNG, TTF } from '../files/file-type.js';
import { namedFileUuid, type Layout } from './template-layout.js';

export type LayoutFileKind = 'background' | 'image' | 'font';

/** What an uploaded file may be where a layout draws it. */
export const LAYOUT_FILE_TYPES: Record<LayoutFileKind, readonly FileType[]> = {
  background: [PDF, PNG, JPEG],
  image: [PNG, JPEG],
  font: [TTF, OTF],
};

/**
 * Each file a layout draws, with the path that names it (for 422s) and its role. A background the
 * template's `path` named is listed under `path` when `templatePath` is given.
 */
export interface LayoutFileReference {
  fileUuid: string;
  path: string;
  kind: LayoutFileKind;
}

export function layoutFileReferences(layout: Layout, templatePath?: string | null): LayoutFileReference[] {
  const background = layout.background && 'fileUuid' in layout.background ? layout.background : null;
  const backgroundPath = background && namedFileUuid(templatePath) === background.fileUuid ? 'path' : 'designConfig.background.file_uuid';
  return [
    ...(background ? [{ fileUuid: background.fileUuid, path: backgroundPath, kind: 'background' as const }] : []),
    ...layout.elements.flatMap((element, index): LayoutFileReference[] => {
      if (element.type === 'image') return [{ fileUuid: element.fileUuid, path: `designConfig.elements[${index}].file_uuid`, kind: 'image' }];
      const font = element.type === 'text' ? namedFileUuid(element.font) : null;
      return font ? [{ fileUuid: font, path: `designConfig.elements[${index}].font`, kind: 'font' }] : [];
    }),
  ];
}
