import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import prettier from 'eslint-config-prettier';

/** The domain folders: business rules, entities, services, resolvers. */
const DOMAINS = [
  'auth',
  'certificates',
  'courses',
  'enrollments',
  'files',
  'institutions',
  'modules',
  'notifications',
  'students',
  'templates',
  'tenants',
  'verification',
  'viewer',
];
const under = (folders) => folders.map((folder) => `./src/${folder}`);

/**
 * What each folder may import (ARCHITECTURE.md, "Import boundaries"). Transport sits on top of the
 * core and the core never reaches back: rest-compat → graphql → resources → db; errors imports nothing;
 * documents/ runs in worker threads and stays free of the database, GraphQL and HTTP.
 */
const BOUNDARIES = [
  {
    target: ['./src/*/**', './src/!(app).ts'],
    from: './rest-compat',
    message: 'Only src/app.ts (the composition root) wires the REST layer; the core never imports rest-compat.',
  },
  {
    target: './src/db',
    from: [...under(['graphql', 'context', 'resources', 'http', 'documents']), './rest-compat'],
    message: 'db/ is below GraphQL, the request context and the resource base.',
  },
  {
    target: './src/db',
    from: './src/auth',
    message: 'db/ never calls back into auth: a request is authenticated before its first query (src/auth/authenticate.ts).',
  },
  {
    target: './src/context',
    from: [...under(['graphql', 'resources', 'http']), './rest-compat'],
    message: 'The request context is below GraphQL and the resource base.',
  },
  { target: './src/errors', from: './src/!(errors)/**', message: 'errors/ is the bottom layer: it imports nothing of the service.' },
  { target: './src/errors', from: './src/*.ts', message: 'errors/ is the bottom layer: it imports nothing of the service.' },
  {
    target: './src/documents',
    from: [
      ...under(['db', 'graphql', 'context', 'resources', 'http', ...DOMAINS.filter((domain) => domain !== 'courses')]),
      './rest-compat',
      './node_modules/express',
      './node_modules/@types/express',
      './node_modules/@mikro-orm',
      './node_modules/graphql',
      './node_modules/type-graphql',
    ],
    message: 'documents/ runs in worker threads on untrusted bytes: no database, GraphQL or HTTP in reach.',
  },
  {
    target: './src/resources',
    from: under(DOMAINS),
    message: 'The resource base is generic: a domain extends it, never the other way round.',
  },
  {
    target: './rest-compat',
    from: under([...DOMAINS.filter((domain) => domain !== 'auth' && domain !== 'files'), 'resources', 'documents', 'cli']),
    message: 'REST maps onto GraphQL operations: it reaches the core only through the schema.',
  },
  {
    target: './rest-compat',
    from: './src/files',
    // The upload cap; the multipart reader itself is src/http/multipart-form.ts, shared with /graphql.
    except: ['./upload-slots.ts'],
    message: 'REST maps onto GraphQL operations: it reaches the core only through the schema.',
  },
  {
    target: './rest-compat',
    from: './src/auth',
    except: ['./authenticate.ts', './token.route.ts'],
    message: 'REST maps onto GraphQL operations: it reaches the core only through the schema.',
  },
];

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', '.data/', 'node_modules/', 'examples/typed-client/generated/', 'sdk/openapi.d.ts'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': ['error', { zones: BOUNDARIES }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  // Tests and benchmarks read untyped JSON response bodies; typing each one adds no safety.
  { files: ['test/**/*.ts', 'bench/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  { files: ['**/*.js', '**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
  prettier,
);
