import type { RequestHandler } from 'express';
import { SERVICE_VERSION } from '../service-version.js';
import { renderLandingPage } from './landing-page.js';
import { sendPage } from './send-page.js';

/** GET /: a small page naming the service, its version and where to go. */
export function landingPage({ ides }: { ides: boolean }): RequestHandler {
  const html = renderLandingPage({ version: SERVICE_VERSION, ides });
  return (_req, res) => sendPage(res, 'en', html);
}
