import { type FileType, PDF, PNG } from '../files/file-type.js';
import type { Layout } from './template-layout.js';

/** What an uploaded file may be where a layout draws it. */
export const LAYOUT_FILE_TYPES: Record<'background' | 'image', readonly FileType[]> = {
  background: [PDF, PNG],
  image: [PNG],
};

/** Each file a layout draws, with the path that names it (for 422s) and its role. */
export function layoutFileReferences(layout: Layout): Array<{ fileUuid: string; path: string; kind: 'background' | 'image' }> {
  const background = layout.background && 'fileUuid' in layout.background ? layout.background : null;
  return [
    ...(background ? [{ fileUuid: background.fileUuid, path: 'designConfig.background.file_uuid', kind: 'background' as const }] : []),
    ...layout.elements.flatMap((element, index) =>
      element.type === 'image' ? [{ fileUuid: element.fileUuid, path: `designConfig.elements[${index}].file_uuid`, kind: 'image' as const }] : [],
    ),
  ];
}
