import { LockMode } from '@mikro-orm/core';
import { declaredImageSize, headOf } from '../badges/badge-image-limits.js';
import type { RequestContext } from '../context/request-context.js';
import { DocumentError } from '../documents/document-error.js';
import type { FieldErrors } from '../errors/domain-error.js';
import { StoredFile } from '../files/file.entity.js';
import { files } from '../files/file.service.js';
import { PDF } from '../files/file-type.js';
import { LAYOUT_FILE_TYPES, type LayoutFileKind, type LayoutFileReference } from './layout-files.js';

/**
 * Bounds on what a template draws: every certificate drawn from it copies these files into a worker
 * and its PDF, and a preview decodes its images. An image's pixels are read from its header.
 */
export const LAYOUT_FILE_MAX_BYTES: Record<LayoutFileKind, number> = { background: 10 * 1024 * 1024, image: 5 * 1024 * 1024, font: 15 * 1024 * 1024 };
export const LAYOUT_IMAGE_MAX_SIDE = 4096;
/** A JPEG's frame header may follow its metadata (EXIF, ICC profile): read this much to find it. */
const IMAGE_HEAD_BYTES = 256 * 1024;

const MB = 1024 * 1024;

/** What is wrong with one file a layout draws, or null: live file of the tenant, type, bytes, pixels, a font's tables. */
async function fileProblem(ctx: RequestContext, file: StoredFile | null, kind: LayoutFileKind): Promise<string | null> {
  if (!file) return 'The selected file uuid is invalid.';
  const types = LAYOUT_FILE_TYPES[kind];
  if (!types.some((type) => type.mimeType === file.mimeType)) return `The file must be of type: ${types.map((type) => type.extension).join(', ')}.`;
  const maxBytes = LAYOUT_FILE_MAX_BYTES[kind];
  if (file.size > maxBytes) return `The file must not be larger than ${maxBytes / MB} MB (it has ${file.size} bytes).`;
  if (kind === 'font') return fontProblem(ctx, file);
  if (file.mimeType === PDF.mimeType) return null;
  const size = declaredImageSize(await headOf(ctx, file, IMAGE_HEAD_BYTES), file.mimeType);
  if (!size) return 'The image must declare its size in its header (a PNG IHDR, a JPEG frame header).';
  if (size.width > LAYOUT_IMAGE_MAX_SIDE || size.height > LAYOUT_IMAGE_MAX_SIDE || size.width === 0 || size.height === 0) {
    return `The image must not be larger than ${LAYOUT_IMAGE_MAX_SIDE}×${LAYOUT_IMAGE_MAX_SIDE} pixels (it is ${size.width}×${size.height}).`;
  }
  return null;
}

/** An uploaded font is parsed on a document worker, in the tenant's lane, within the workers' limits. */
async function fontProblem(ctx: RequestContext, file: StoredFile): Promise<string | null> {
  try {
    await ctx.documents.checkFont(await files.read(ctx, file), ctx.jobOwner);
    return null;
  } catch (error) {
    if (error instanceof DocumentError) return error.message;
    throw error;
  }
}

/**
 * Every problem of the files a design draws, under the path that names each (read FOR SHARE, so a
 * concurrent delete waits: files/file-holders.ts). A file named twice is checked once.
 */
export async function layoutFileErrors(ctx: RequestContext, references: LayoutFileReference[]): Promise<FieldErrors> {
  const errors: FieldErrors = {};
  const checked = new Map<string, string | null>();
  for (const { fileUuid, path, kind } of references) {
    const key = `${kind}:${fileUuid}`;
    if (!checked.has(key)) {
      const file = await ctx.em.findOne(StoredFile, { uuid: fileUuid }, { lockMode: LockMode.PESSIMISTIC_READ });
      checked.set(key, await fileProblem(ctx, file, kind));
    }
    const problem = checked.get(key);
    if (problem) (errors[path] ??= []).push(problem);
  }
  return errors;
}
