import { type Request, type RequestHandler, type Response, Router } from 'express';
import { requestContext } from '../auth/authenticate.js';
import type { PreviewFormat } from '../documents/index.js';
import { DomainError, invalid } from '../errors/domain-error.js';
import { isFresh } from '../files/file-download.route.js';
import { describeRoute, jsonError } from '../http/route-contract.js';
import { PREVIEW_MEDIA_TYPES, templatePreview } from './template-preview.js';

export const TEMPLATE_PREVIEW_ROUTE = describeRoute({
  method: 'get',
  base: '/api/v1',
  path: '/certificate-templates/:uuid/preview',
  tag: 'certificate-templates',
  authenticated: true,
  summary: "A template's layout drawn as a preview",
  description:
    "The layout of `design_config` drawn with sample data, or with a certificate's data (`certificate_uuid`), as a PNG (default) or a PDF: `format=png|pdf`, else `Accept`. Drawn on the tenant's document workers with the limits of issuance; the same version and data are drawn once (`ETag`, `If-None-Match` → 304). `preview_image_path` of a template with a layout points here.",
  query: {
    format: { description: '`png` or `pdf`; wins over `Accept`.', schema: { type: 'string', enum: ['png', 'pdf'] } },
    certificate_uuid: {
      description: "Draw this certificate's data (a certificate of the tenant) instead of sample data.",
      schema: { type: 'string', format: 'uuid' },
    },
  },
  responses: {
    200: {
      description: 'The drawn page.',
      content: { 'image/png': { type: 'string', format: 'binary' }, 'application/pdf': { type: 'string', format: 'binary' } },
      headers: { ETag: { description: 'What was drawn: template version, data and format.', schema: { type: 'string' } } },
    },
    304: { description: 'Not modified (`If-None-Match`).' },
    404: jsonError('No such template, or no such certificate, in this tenant.'),
    406: jsonError('`Accept` names neither image/png nor application/pdf.'),
    409: jsonError('The template has no layout to draw.'),
    422: jsonError('A bad `format` or `certificate_uuid`, or a file of the layout that cannot be drawn.'),
  },
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `format=` first, then `Accept` (PNG when it takes anything); null when neither can be answered. */
function requestedFormat(req: Request): PreviewFormat | null {
  const format = req.query.format;
  if (format !== undefined) {
    if (format === 'png' || format === 'pdf') return format;
    throw invalid({ format: ['The format field must be one of: png, pdf.'] });
  }
  const accepted = req.accepts([PREVIEW_MEDIA_TYPES.png, PREVIEW_MEDIA_TYPES.pdf]);
  return accepted === PREVIEW_MEDIA_TYPES.pdf ? 'pdf' : accepted === PREVIEW_MEDIA_TYPES.png ? 'png' : null;
}

async function preview(req: Request, res: Response): Promise<void> {
  const format = requestedFormat(req);
  if (!format) throw new DomainError('NOT_ACCEPTABLE', 'Previews are image/png or application/pdf; ask for one of them (Accept or format=).');
  const certificateUuid = req.query.certificate_uuid;
  if (certificateUuid !== undefined && (typeof certificateUuid !== 'string' || !UUID.test(certificateUuid))) {
    throw invalid({ certificate_uuid: ['The certificate uuid field must be a valid UUID.'] });
  }
  if (!UUID.test(String(req.params.uuid))) throw new DomainError('NOT_FOUND', 'Certificate template not found.');
  const drawn = await templatePreview(requestContext(res), String(req.params.uuid), { format, certificateUuid });
  res.set({ ETag: drawn.etag, 'Cache-Control': 'private, no-cache', Vary: 'Accept', 'X-Content-Type-Options': 'nosniff' });
  if (isFresh(req, drawn.etag)) {
    res.status(304).end();
    return;
  }
  res.status(200).type(drawn.mediaType).send(drawn.bytes);
}

/** GET /certificate-templates/{uuid}/preview, authenticated like the REST table (`auth`). */
export function templatePreviewRoutes(auth: RequestHandler): Router {
  const router = Router();
  router.get(TEMPLATE_PREVIEW_ROUTE.path, auth, (req, res, next) => {
    preview(req, res).catch(next);
  });
  return router;
}
