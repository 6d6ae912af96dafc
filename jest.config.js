/** Jest runs TypeScript through SWC: decorator metadata on, ESM-only @nestjs packages transformed. */
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.e2e.ts'],
  transform: { '^.+\\.(t|j|mj)s$': ['@swc/jest', swc] },
  transformIgnorePatterns: [
    // glob and its dependencies are ESM too; @fastify/static (Swagger UI on Fastify) requires glob.
    '/node_modules/(?!(@nestjs|cookie|file-type|strtok3|token-types|@tokenizer|uint8array-extras|load-esm|glob|minimatch|path-scurry|lru-cache|minipass|jackspeak|foreground-child|package-json-from-dist|balanced-match|brace-expansion|@isaacs|content-disposition|jose)/)',
  ],
  testTimeout: 60000,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
};
