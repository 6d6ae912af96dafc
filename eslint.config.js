/**
 * Import boundaries (npm run lint, part of npm test). A bounded context is reachable from outside
 * its folder only through its index.ts: other contexts reach its services through ports they
 * declare themselves, bound at the composition root (libs/composition). The infrastructure
 * libraries below may be imported anywhere, deeply; they import no context.
 */
const tsParser = require('@typescript-eslint/parser');

const INFRASTRUCTURE = ['platform', 'event-store', 'read-store', 'blob-store', 'runtime', 'testing', 'composition'];
const infrastructure = INFRASTRUCTURE.join('|');

/** `…/<lib>/src/<anything but index>` of a library that is not infrastructure: a context's internals. */
const contextInternals = {
  regex: `^(\\.\\./)+(libs/)?(?!(${infrastructure})/)[^/.]+/src/(?!index$).+`,
  message: "import a bounded context only through its index.ts ('…/<context>/src'); to use another context's service, declare a port in your context and bind it in libs/composition/src/contexts.ts",
};

/** Any bounded context at all, index included. */
const anyContext = {
  regex: `^(\\.\\./)+(libs/)?(?!(${infrastructure})/)[^/.]+/src(/.*)?$`,
  message: 'infrastructure libraries know no bounded context: the composition root (libs/composition) lists them',
};

module.exports = [
  { ignores: ['dist/**', 'node_modules/**', 'data/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tsParser, sourceType: 'module' },
    // Only the boundary rules run: type checking is tsc's job, style is not checked.
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: { 'no-restricted-imports': ['error', { patterns: [contextInternals] }] },
  },
  {
    files: ['libs/{platform,event-store,read-store,blob-store,runtime}/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [contextInternals, anyContext] }] },
  },
];
