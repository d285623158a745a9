import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { Express } from 'express';
import type { Browser } from 'playwright-core';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { freePort, launchChromium, watchedPage } from './support/browser.js';
import { startTestService, type TestService } from './support/service.js';

interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, { operationId: string; tags: string[]; security?: unknown[]; responses: Record<string, unknown> }>>;
  components: { securitySchemes: Record<string, any> };
}

let service: TestService;
let baseUrl: string;
let spec: OpenApiDocument;

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  service = await startTestService({ PORT: String(port), PUBLIC_BASE_URL: baseUrl, NOTIFICATION_WORKER: 'off' });
  spec = (await (await fetch(`${baseUrl}/api/v1/openapi.json`)).json()) as OpenApiDocument;
});
afterAll(() => service.stop());

/** Express layers as the app registers them: routes with their methods, routers with their mount path. */
interface Layer {
  rawPath?: string | string[];
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

/** Every method + path the Express app answers (full paths), skipping guards of whole subtrees (`/ob/*path`) and the 405 catch-alls. */
function expressRoutes(stack: Layer[], prefix = ''): string[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      const methods = Object.keys(layer.route.methods).filter((method) => method !== '_all');
      return [layer.route.path]
        .flat()
        .filter((path) => !path.includes('*'))
        .flatMap((path) => methods.map((method) => `${method.toUpperCase()} ${path === '/' && prefix ? prefix : `${prefix}${path}`}`));
    }
    if (!layer.handle.stack) return [];
    const mount = [layer.rawPath ?? ''].flat()[0]!;
    return expressRoutes(layer.handle.stack, mount === '/' ? prefix : `${prefix}${mount}`);
  });
}

const isApi = (route: string) => /^\w+ (\/api\/|\/ob\/|\/clr\/|\/oid4vci\/|\/\.well-known\/|\/blockcerts\/|\/healthz$|\/readyz$|\/oembed$)/.test(route);

const documented = (doc: OpenApiDocument) =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`));

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document whose references all resolve', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(spec) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(() => validator.resolveRefs()).not.toThrow();
    const ids = Object.values(spec.paths).flatMap((item) => Object.values(item).map((operation) => operation.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('lists every API route the app answers, and nothing else', async () => {
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: service.database.url, PUBLIC_BASE_URL: baseUrl });
    const { app, apollo } = await createApp({ config, orm: service.orm, logger: createLogger('silent'), runtime: service.runtime });
    try {
      const answered = expressRoutes((app as Express & { router: { stack: Layer[] } }).router.stack).filter(isApi);
      expect(new Set(documented(spec))).toEqual(new Set(answered));
      expect(answered.length).toBeGreaterThan(80);
    } finally {
      await apollo.stop();
    }
  });

  it('describes the token flow as OAuth 2.0 client credentials, and authenticated routes with the tenant header', () => {
    expect(spec.components.securitySchemes.clientCredentials).toEqual(
      expect.objectContaining({ type: 'oauth2', flows: { clientCredentials: { tokenUrl: `${baseUrl}/api/v1/oauth/token`, scopes: {} } } }),
    );
    expect(spec.components.securitySchemes.tenant).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Tenant' }));
    const list = spec.paths['/api/v1/institutions']!.get!;
    expect(list.security).toBeUndefined(); // the document's default: token and tenant
    expect(Object.keys(list.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '422', '429']));
    expect(spec.paths['/api/v1/oauth/token']!.post!.security).toEqual([]);
    expect(spec.paths['/api/v1/verify/{uuid}']!.get!.security).toEqual([]);
  });

  it('derives bodies, parameters and answers from the GraphQL types of each route', () => {
    const create = spec.paths['/api/v1/courses/{courseUuid}/modules/groups']!.post as any;
    const body = create.requestBody.content['application/json'].schema;
    // The parent comes from the path, so it is not part of the body.
    expect(Object.keys(body.properties)).not.toContain('course_uuid');
    expect(body.required).toEqual(['name']);
    expect(create.parameters).toEqual([{ name: 'courseUuid', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }]);

    const list = spec.paths['/api/v1/certificates']!.get as any;
    const names = list.parameters.map((parameter: { name: string }) => parameter.name);
    expect(names).toEqual(['where', 'sort', 'page', 'cursor', 'per_page', 'includes']);
    const includes = list.parameters.find((parameter: { name: string }) => parameter.name === 'includes');
    expect(Object.keys(includes.schema.properties)).toEqual(['student', 'course', 'institution', 'files']);
    const answer = list.responses['200'].content['application/json'].schema;
    expect(answer.required).toEqual(['data', 'meta', 'links']);
    const item = answer.properties.data.items;
    expect(item.properties.public_verification_url).toBeDefined();
    // An include replaces the embedded relation by the full record...
    expect(Object.keys(item.properties.files.items.properties)).toEqual(expect.arrayContaining(['type', 'uuid', 'original_name']));
    // ...or joins it, documented but only present when asked for.
    const student = (spec.paths['/api/v1/students']!.get as any).responses['200'].content['application/json'].schema.properties.data.items;
    expect(student.properties.enrollments.type).toBe('array');
    expect(student.required).not.toContain('enrollments');

    const upload = spec.paths['/api/v1/files']!.post as any;
    expect(Object.keys(upload.requestBody.content)).toEqual(['multipart/form-data']);
    expect(Object.keys(upload.responses)).toEqual(expect.arrayContaining(['201', '413', '415']));

    const revoke = spec.paths['/api/v1/certificates/{uuid}/revoke']!.post as any;
    expect(revoke.requestBody.content['application/json'].schema).toEqual({ type: 'object', properties: { reason: { type: 'string' } }, required: ['reason'] });
  });

  it('names the Laravel error envelopes with examples', async () => {
    const schemas = (spec.components as any).schemas;
    expect(schemas.ValidationError.required).toEqual(['message', 'errors']);
    const unauthenticated = (spec.paths['/api/v1/institutions']!.get!.responses['401'] as any).content['application/json'];
    expect(unauthenticated.example).toEqual({ message: 'Unauthenticated.' });
    const actual = await fetch(`${baseUrl}/api/v1/institutions`);
    expect(await actual.json()).toEqual(unauthenticated.example);
  });
});

describe('the /docs page', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser.close());

  it('renders every operation from the service alone (no network), under its own CSP', async () => {
    const watched = await watchedPage(browser, { viewport: { width: 1280, height: 900 } });
    const outside: string[] = [];
    watched.page.on('request', (request) => !request.url().startsWith(baseUrl) && outside.push(request.url()));
    try {
      const response = await watched.page.goto(`${baseUrl}/docs`);
      expect(response!.headers()['content-security-policy']).toContain("script-src 'self'");
      const operations = documented(spec).length;
      // Past ~130 operations Swagger UI draws only the operations near the window (they appear as one
      // scrolls): a window tall enough for all of them lets the test see every one at once.
      await watched.page.setViewportSize({ width: 1280, height: 16_000 });
      await watched.page.waitForFunction((count) => document.querySelectorAll('.opblock').length === count, operations, { timeout: 60_000 });
      await expect(watched.page.locator('.opblock-summary-path', { hasText: '/api/v1/certificates/{uuid}/revoke' }).count()).resolves.toBe(1);
      await expect(watched.page.locator('button.authorize').count()).resolves.toBe(1);
      expect(watched.consoleErrors).toEqual([]);
      expect(outside).toEqual([]);
      // For a person to look at (git-ignored); docs/ keeps the pictures chosen for the documentation.
      const artifacts = join(process.cwd(), 'test-artifacts');
      await mkdir(artifacts, { recursive: true });
      await watched.page.screenshot({ path: join(artifacts, 'api-reference.png'), clip: { x: 0, y: 0, width: 1280, height: 900 } });
      await watched.page.locator('.opblock-summary', { hasText: '/api/v1/certificates/{uuid}/revoke' }).click();
      await watched.page.locator('.opblock.is-open').waitFor();
      await watched.page.locator('.opblock.is-open').scrollIntoViewIfNeeded();
      await watched.page.screenshot({ path: join(artifacts, 'api-reference-operation.png') });
      expect(watched.consoleErrors).toEqual([]);
    } finally {
      await watched.close();
    }
  }, 120_000);
});
