import { createRequire } from 'node:module';
import path from 'node:path';
import { Router } from 'express';
import { GRAPHIQL_APP } from './graphiql-app.js';
import { renderGraphiqlPage } from './graphiql-page.js';
import { DEVELOPER_PAGE_POLICY } from '../http/security-headers.js';

const require = createRequire(import.meta.url);
const packageDir = (name: string) => path.dirname(require.resolve(`${name}/package.json`));

/** The standalone builds GraphiQL 3 ships (its UMD bundle expects React 18's UMD builds as globals). */
const ASSETS: Record<string, { file: string; type: string }> = {
  'react.js': { file: path.join(packageDir('react'), 'umd/react.production.min.js'), type: 'js' },
  'react-dom.js': { file: path.join(packageDir('react-dom'), 'umd/react-dom.production.min.js'), type: 'js' },
  'graphiql.js': { file: path.join(packageDir('graphiql'), 'graphiql.min.js'), type: 'js' },
  'graphiql.css': { file: path.join(packageDir('graphiql'), 'graphiql.min.css'), type: 'css' },
};

const PAGE_CSS = `html, body { height: 100%; margin: 0; font-family: system-ui, sans-serif; }
body { display: flex; flex-direction: column; }
form { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; padding: .5rem 1rem; border-bottom: 1px solid #ddd; }
form label { display: flex; gap: .4rem; align-items: center; }
form input[name=token] { width: 28rem; max-width: 60vw; }
form small { color: #555; }
#graphiql { flex: 1; min-height: 0; }`;

/** GraphiQL at /graphiql (development), from the project's own node_modules, beside Apollo Sandbox at /graphql. */
export function graphiqlRoutes(): Router {
  const router = Router();
  const page = renderGraphiqlPage();
  router.get('/graphiql', (_req, res) => {
    res.set({ 'Content-Security-Policy': DEVELOPER_PAGE_POLICY, 'Cache-Control': 'no-cache' }).type('html').send(page);
  });
  router.get('/graphiql/app.js', (_req, res) => res.type('js').send(GRAPHIQL_APP));
  router.get('/graphiql/page.css', (_req, res) => res.type('css').send(PAGE_CSS));
  router.get('/graphiql/assets/:name', (req, res, next) => {
    const asset = ASSETS[req.params.name];
    if (!asset) return next();
    res.type(asset.type).sendFile(asset.file, { maxAge: '1h' });
  });
  return router;
}
