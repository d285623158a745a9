/** Tests are end to end against real PostgreSQL; see test/support/global-setup.ts. */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts', '.tsx'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
          target: 'es2023',
          keepClassNames: true,
        },
        module: { type: 'es6' },
      },
    ],
    // Public pages are JSX rendered by preact (see .swcrc).
    '^.+\\.tsx$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', tsx: true },
          transform: { react: { runtime: 'automatic', importSource: 'preact' } },
          target: 'es2023',
          keepClassNames: true,
        },
        module: { type: 'es6' },
      },
    ],
  },
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  setupFilesAfterEnv: ['<rootDir>/test/support/stack-trace-limit.mjs'],
  maxWorkers: 2,
  // Each test file loads the whole service again in the worker's module registry, and not all of it is
  // collected (native addons, worker threads' buffers): a worker that grew past this is replaced after its
  // file rather than reused, which kept it from reaching 5 GB and slowing every later file with GC.
  workerIdleMemoryLimit: '1200MB',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.mjs'],
  testTimeout: 30000,
};
