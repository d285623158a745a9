import { type ErrorRequestHandler, type Request, type RequestHandler, type Response, Router } from 'express';
import type { Config } from '../config.js';
import { classifyError, errorHeaders } from '../errors/classify.js';
import { DomainError, ERROR_STATUS, type ErrorCode } from '../errors/domain-error.js';
import type { PublicContextOf } from '../http/public-context.js';
import { limitByAddress } from '../rate-limits/http-limits.js';
import { limitWorkerTime } from '../rate-limits/worker-time-limit.js';
import type { RateLimits } from '../rate-limits/rate-limits.js';
import { singleUpload } from '../http/single-upload.js';
import { badges } from '../badges/badge.service.js';
import { verificationFacts, verifyDocument } from '../verification/verification.service.js';
import { chooseLocale } from './locale.js';
import { messagesFor } from './messages.js';
import { renderNotFoundPage } from './not-found-page.js';
import { tooLargeMessage, type PageContext } from './parts.js';
import { sendPage } from './send-page.js';
import { renderUploadFormPage, renderUploadProblemPage, renderUploadResultPage } from './upload-result-page.js';
import { renderVerificationPage } from './verification-page.js';
import { CardCache } from './card-cache.js';
import { isFresh } from '../files/file-download.route.js';
import { isShareTarget, ownPageUrl, shareDestination } from './share-links.js';
import { credentialDetails } from '../verification/credential-details.js';
import { countEngagement } from '../engagement/engagement-recorder.js';
import { engagementSource } from '../engagement/engagement-source.js';
import { liveOfferUrl } from '../wallets/credential-offers.js';
import { ob3Urls } from '../badges/v3/did-web.js';

interface PublicPagesDeps {
  publicContext: PublicContextOf;
  config: Config;
  limits: RateLimits;
}

function pageContext(req: Request, config: Config): PageContext {
  const { locale, explicit } = chooseLocale(req);
  return { locale, explicitLocale: explicit, verifyMaxBytes: config.verifyMaxBytes };
}

/** What a person is told when the check could not run; the status stays the API's. */
function problemText(code: ErrorCode, context: PageContext): string {
  const m = messagesFor(context.locale).problem;
  switch (code) {
    case 'PAYLOAD_TOO_LARGE':
      return tooLargeMessage(context);
    case 'BAD_USER_INPUT':
      return m.noFile;
    case 'TOO_MANY_REQUESTS':
      return m.tooMany;
    case 'SERVICE_UNAVAILABLE':
      return m.busy;
    default:
      return m.unreadable;
  }
}

/** Failures under the public pages as pages: the rate limit, the upload's size and shape, a busy service. */
function pageErrors(config: Config): ErrorRequestHandler {
  return (caught, req, res, next) => {
    const error = classifyError(caught);
    if (error.internal || res.headersSent) return next(caught);
    res.set(errorHeaders(error.code, 'none'));
    const context = pageContext(req, config);
    sendPage(res, context.locale, renderUploadProblemPage(problemText(error.code, context), context), ERROR_STATUS[error.code]);
  };
}

/** The public HTML of verification: GET /verify/{uuid}, the PDF check (GET and POST /verify). */
export function publicPages({ publicContext, config, limits }: PublicPagesDeps): Router {
  const router = Router();
  const publicReads = limitByAddress(limits.store, limits.publicReads);
  const cards = new CardCache();

  router.get('/verify/:uuid', publicReads, async (req, res) => {
    const context = pageContext(req, config);
    const ctx = publicContext(req);
    const facts = await verificationFacts(ctx, String(req.params.uuid));
    if (!facts) sendPage(res, context.locale, renderNotFoundPage('certificate', context.locale), 404);
    else if (facts === 'withdrawn') sendPage(res, context.locale, renderNotFoundPage('withdrawn', context.locale), 410);
    else {
      const [badgeDownloadUrl, details] = await Promise.all([badges.bakedImageUrl(ctx, facts.uuid), credentialDetails(ctx, facts.uuid)]);
      const pageUrl = ownPageUrl(ctx.publicBaseUrl, facts.uuid);
      const walletOfferUrl = typeof req.query.offer === 'string' ? await liveOfferUrl(ctx, req.query.offer, facts.uuid) : null;
      const clrUrl = badgeDownloadUrl ? ob3Urls(ctx.publicBaseUrl).clr(facts.uuid) : null;
      sendPage(res, context.locale, renderVerificationPage({ ...facts, badgeDownloadUrl, details, pageUrl, clrUrl, walletOfferUrl }, context));
      countEngagement(engagementSource(ctx, req), facts.uuid, 'page_view');
    }
  });

  // The link's picture (og:image): public and cacheable, it names only what the page shows.
  router.get('/verify/:uuid/card.png', publicReads, async (req, res) => {
    const { locale } = chooseLocale(req);
    const facts = await verificationFacts(publicContext(req), String(req.params.uuid));
    if (!facts || facts === 'withdrawn') throw new DomainError(facts ? 'GONE' : 'NOT_FOUND', facts ? 'Withdrawn.' : 'Not found.');
    const { png, etag } = await cards.card(facts, locale);
    res.set({ 'Cache-Control': 'public, max-age=3600', ETag: etag, 'Content-Language': locale }).vary('Accept-Language');
    if (isFresh(req, etag)) res.status(304).end();
    else res.type('png').send(png);
  });

  // Share buttons lead here: the click is counted (valid certificates only), then the network's own share address.
  router.get('/verify/:uuid/share/:target', publicReads, async (req, res) => {
    const { locale } = chooseLocale(req);
    const target = String(req.params.target);
    const ctx = publicContext(req);
    const facts = isShareTarget(target) ? await verificationFacts(ctx, String(req.params.uuid)) : null;
    if (!facts || facts === 'withdrawn' || facts.state !== 'valid' || !isShareTarget(target)) throw new DomainError('NOT_FOUND', 'Not found.');
    countEngagement(engagementSource(ctx, req), facts.uuid, target === 'linkedin-profile' ? 'linkedin_add' : 'share_click');
    res.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' }).redirect(302, shareDestination(target, facts, locale));
  });

  router.get('/verify', publicReads, (req, res) => {
    const context = pageContext(req, config);
    sendPage(res, context.locale, renderUploadFormPage(context));
  });

  router.post('/verify', limitByAddress(limits.store, limits.verify), limitWorkerTime(limits.store, limits.publicWorkerTime), async (req, res) => {
    const context = pageContext(req, config);
    const pdf = await singleUpload(req, config.verifyMaxBytes, 'Send the PDF as application/pdf or as a multipart form file.');
    // A browser sends an empty file part when nothing was chosen.
    if (pdf.length === 0) throw new DomainError('BAD_USER_INPUT', 'The file field is required.', { file: ['The file field is required.'] });
    const verdict = await verifyDocument(publicContext(req), pdf);
    sendPage(res, context.locale, renderUploadResultPage(verdict, context));
  });

  router.use(pageErrors(config));
  return router;
}

/** Unknown addresses outside the APIs, asked for by a browser: the 404 page instead of JSON. */
export const htmlNotFound: RequestHandler = (req: Request, res: Response, next) => {
  const browser = (req.method === 'GET' || req.method === 'HEAD') && req.accepts(['json', 'html']) === 'html';
  if (!browser || req.path.startsWith('/api/') || req.path.startsWith('/graphql')) return next();
  const { locale } = chooseLocale(req);
  sendPage(res, locale, renderNotFoundPage('page', locale), 404);
};
