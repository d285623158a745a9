import { createRequire } from 'node:module';
import path from 'node:path';
import { type Response, Router } from 'express';
import { describeRoute } from '../../src/http/route-contract.js';
import { DEVELOPER_PAGE_POLICY } from '../../src/http/security-headers.js';

/** GET /api/v1/openapi.json: described like every hand-written route, so the document lists itself. */
export const OPENAPI_ROUTE = describeRoute({
  method: 'get',
  base: '/api/v1',
  path: '/openapi.json',
  tag: 'reference',
  summary: 'This OpenAPI 3.1 document',
  description: 'Generated at boot from the REST route table and the GraphQL types its operations use. Public.',
  responses: { 200: { description: 'The document.', content: { 'application/json': { type: 'object' } } } },
});

/** Swagger UI's self-contained bundle, served from this service's node_modules: the page works offline, no CDN. */
const SWAGGER_UI = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = { 'swagger-ui.css': 'swagger-ui.css', 'swagger-ui-bundle.js': 'swagger-ui-bundle.js' };

// No validator badge (it would call validator.swagger.io); the token and X-Tenant go in "Authorize".
const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(`${OPENAPI_ROUTE.base}${OPENAPI_ROUTE.path}`)},
  dom_id: '#reference',
  deepLinking: true,
  validatorUrl: null,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>REST API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<main id="reference"></main>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/reference.js"></script>
</body>
</html>
`;

const asset = (res: Response) => res.set('Cache-Control', 'public, max-age=3600');

/** Each document's JSON, written once: the document is built once per schema and address (src/app.ts), and every app a process starts serves it. */
const serialized = new WeakMap<Record<string, unknown>, string>();

/** GET /api/v1/openapi.json, for the router mounted at `OPENAPI_ROUTE.base`. */
export function openApiRoute(document: Record<string, unknown>): Router {
  let body = serialized.get(document);
  if (body === undefined) serialized.set(document, (body = JSON.stringify(document)));
  const router = Router();
  router.get(OPENAPI_ROUTE.path, (_req, res) => {
    res.type('application/json').set('Cache-Control', 'no-cache').send(body);
  });
  return router;
}

/** The /docs page that renders the OpenAPI document. */
export function apiReferencePage(): Router {
  const router = Router();
  router.get('/docs', (_req, res) => {
    res.set('Content-Security-Policy', DEVELOPER_PAGE_POLICY).type('html').send(PAGE);
  });
  router.get('/docs/assets/reference.js', (_req, res) => {
    asset(res).type('text/javascript').send(INIT_SCRIPT);
  });
  router.get('/docs/assets/:name', (req, res, next) => {
    const file = ASSETS[req.params.name];
    if (!file) return next();
    asset(res).sendFile(path.join(SWAGGER_UI, file));
  });
  return router;
}
