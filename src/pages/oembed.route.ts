import { type Request, type Response, Router, type RequestHandler } from 'express';
import { DomainError } from '../errors/domain-error.js';
import { classifyError } from '../errors/classify.js';
import type { PublicContextOf } from '../http/public-context.js';
import { sendError } from '../http/error-response.js';
import { describeRoute, jsonError, TOO_MANY_REQUESTS } from '../http/route-contract.js';
import { isUuid } from '../db/uuid.js';
import { verificationFacts } from '../verification/verification.service.js';
import { CARD_HEIGHT, CARD_WIDTH } from './credential-card.js';
import { faviconIco } from './favicon.js';
import { chooseLocale } from './locale.js';
import { messagesFor } from './messages.js';
import { cardUrl, embedSnippet, ownPageUrl } from './share-links.js';

/** GET /oembed (oEmbed 1.0): the embed of a credential page; the pages name it in a discovery link. */
export const OEMBED_ROUTE = describeRoute({
  method: 'get',
  base: '',
  path: '/oembed',
  tag: 'public pages',
  summary: 'oEmbed of a credential page',
  description: 'Public, readable cross-origin. Only this service’s `/verify/{uuid}` of a valid certificate has an embed (docs/public-pages.md).',
  query: {
    url: { description: 'The credential page, `{PUBLIC_BASE_URL}/verify/{uuid}`.', schema: { type: 'string', format: 'uri' } },
    format: { description: '`json` (the only one offered).', schema: { type: 'string', enum: ['json'] } },
  },
  responses: {
    200: {
      description: 'An oEmbed `rich` response: the embed snippet (the card image linked to the page) and the card as thumbnail.',
      content: { 'application/json': { type: 'object', required: ['version', 'type', 'html', 'width', 'height'] } },
    },
    404: jsonError('Not a credential page of this service, or the certificate is not valid.'),
    429: TOO_MANY_REQUESTS,
    501: jsonError('A format other than `json`.'),
  },
});

const EMBED_WIDTH = 600;
const EMBED_HEIGHT = 315;

/** The certificate uuid of one of this service's verification pages, else null. */
function pageUuid(url: unknown, publicBaseUrl: string): string | null {
  if (typeof url !== 'string' || url.length > 2048) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const base = new URL(publicBaseUrl);
  const match = /^\/verify\/([^/]+)\/?$/.exec(parsed.pathname);
  return parsed.origin === base.origin && match && isUuid(match[1]!) ? match[1]! : null;
}

async function oembed(publicContext: PublicContextOf, req: Request, res: Response): Promise<void> {
  // oEmbed §2.2: 501 for a format not offered, 404 for a URL with no embed.
  if (req.query.format !== undefined && req.query.format !== 'json') {
    res.status(501).json({ message: 'Only format=json is offered.' });
    return;
  }
  const ctx = publicContext(req);
  const uuid = pageUuid(req.query.url, ctx.publicBaseUrl);
  const facts = uuid ? await verificationFacts(ctx, uuid) : null;
  // Only a valid certificate is offered for embedding, as for sharing.
  if (!facts || facts === 'withdrawn' || facts.state !== 'valid') throw new DomainError('NOT_FOUND', 'No embed for this URL.');
  const { locale } = chooseLocale(req);
  const pageUrl = ownPageUrl(ctx.publicBaseUrl, facts.uuid);
  const messages = messagesFor(locale);
  res
    .set({ 'Cache-Control': 'public, max-age=3600', 'Access-Control-Allow-Origin': '*', 'Content-Language': locale })
    .vary('Accept-Language')
    .json({
      version: '1.0',
      type: 'rich',
      title: messages.oembed.title(facts.courseName, facts.recipientName),
      author_name: facts.recipientName,
      provider_name: facts.institutionName,
      provider_url: ctx.publicBaseUrl,
      cache_age: 3600,
      html: embedSnippet(facts, pageUrl, locale),
      width: EMBED_WIDTH,
      height: EMBED_HEIGHT,
      thumbnail_url: cardUrl(pageUrl, locale),
      thumbnail_width: CARD_WIDTH,
      thumbnail_height: CARD_HEIGHT,
    });
}

/** GET /oembed?url=…&format=json (oEmbed 1.0, the pages name it with a discovery link) and GET /favicon.ico. */
export function oembedRoutes(publicContext: PublicContextOf, publicReads: RequestHandler): Router {
  const router = Router();
  router.get(OEMBED_ROUTE.path, publicReads, async (req, res) => {
    try {
      await oembed(publicContext, req, res);
    } catch (error) {
      const classified = classifyError(error);
      if (classified.internal) throw error;
      sendError(res, classified);
    }
  });
  router.get('/favicon.ico', (_req, res) => {
    res.set({ 'Cache-Control': 'public, max-age=86400' }).type('image/x-icon').send(faviconIco());
  });
  return router;
}
