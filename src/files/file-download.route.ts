import { countDocumentDownload } from '../engagement/engagement-recorder.js';
import { engagementSource } from '../engagement/engagement-source.js';
import { pipeline } from 'node:stream/promises';
import { type Request, type Response, Router } from 'express';
import type { PublicContext } from '../context/request-context.js';
import type { PublicContextOf } from '../http/public-context.js';
import { notFound } from '../errors/domain-error.js';
import type { StoredFile } from './file.entity.js';
import { files, findFileAcrossTenants } from './file.service.js';
import { SVG } from './file-type.js';
import { describeRoute, jsonError, TOO_MANY_REQUESTS } from '../http/route-contract.js';

export const FILE_DOWNLOAD_ROUTE = describeRoute({
  method: 'get',
  base: '/api/v1',
  path: '/files/:uuid/download',
  tag: 'files',
  summary: "A file's content",
  description:
    'Public: no token, no tenant. `Content-Type` from the detected type, `Content-Disposition` with the original name, `ETag` from the content hash (`If-None-Match` → 304).',
  responses: {
    200: {
      description: 'The bytes.',
      content: {
        'application/pdf': { type: 'string', format: 'binary' },
        'image/png': { type: 'string', format: 'binary' },
        'image/svg+xml': { type: 'string', format: 'binary' },
      },
      headers: {
        ETag: { description: 'The content hash.', schema: { type: 'string' } },
        'Content-Disposition': { description: '`inline` with the original name.', schema: { type: 'string' } },
      },
    },
    302: {
      description: 'With S3_PRESIGNED_DOWNLOADS=true and the file in object storage: the content is at `Location`, a presigned URL valid for five minutes.',
      headers: { Location: { description: 'The presigned URL.', schema: { type: 'string' } } },
    },
    304: { description: 'Not modified (`If-None-Match`).' },
    404: jsonError('No such file.'),
    429: TOO_MANY_REQUESTS,
  },
});

/** RFC 6266 with RFC 5987 `filename*` for the real name and a plain ASCII `filename` for old clients. */
export function contentDisposition(name: string): string {
  const ascii = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  return `inline; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** If-None-Match uses the weak comparison: `W/"x"` matches `"x"`, `*` matches anything. */
export function isFresh(req: Request, etag: string): boolean {
  const header = req.get('if-none-match');
  if (!header) return false;
  return header.split(',').some((tag) => {
    const value = tag.trim();
    return value === '*' || value.replace(/^W\//, '') === etag;
  });
}

function headersFor(file: StoredFile, etag: string): Record<string, string> {
  const headers: Record<string, string> = {
    ETag: etag,
    // Content never changes for a uuid, but the file may be deleted: caches revalidate (cheap with the ETag).
    'Cache-Control': 'public, no-cache',
    'X-Content-Type-Options': 'nosniff',
  };
  // An SVG opened directly is a document that could run script on this origin.
  if (file.mimeType === SVG.mimeType) headers['Content-Security-Policy'] = "default-src 'none'; style-src 'unsafe-inline'; sandbox";
  return headers;
}

async function download(ctx: PublicContext, req: Request, res: Response): Promise<void> {
  const file = await findFileAcrossTenants(ctx, String(req.params.uuid));
  if (!file) throw notFound('File');
  const etag = `"${file.hash}"`;
  res.set(headersFor(file, etag));
  if (isFresh(req, etag)) {
    res.status(304).end();
    return;
  }
  const direct = await files.directUrl(ctx, file, contentDisposition(file.originalName));
  if (direct) {
    // The client fetches the bytes from the object store itself, signed for a few minutes.
    res.set('Cache-Control', 'private, no-store').redirect(302, direct);
    return;
  }
  const content = await files.open(ctx, file);
  res.status(200).set({ 'Content-Type': file.mimeType, 'Content-Length': String(file.size), 'Content-Disposition': contentDisposition(file.originalName) });
  if (req.method === 'HEAD') {
    content.destroy();
    res.end();
    return;
  }
  if (file.mimeType === 'application/pdf') countDocumentDownload(engagementSource(ctx, req), file.uuid);
  await pipeline(content, res);
}

/** GET /files/{uuid}/download: public (no token, no tenant), mounted before the authenticated REST routes. */
export function fileDownloadRoutes(publicContext: PublicContextOf): Router {
  const router = Router();
  router.get(FILE_DOWNLOAD_ROUTE.path, async (req, res, next) => {
    try {
      await download(publicContext(req), req, res);
    } catch (error) {
      // Once the body has started, the only honest signal left is a cut connection.
      if (res.headersSent) res.destroy();
      else next(error);
    }
  });
  return router;
}
