/**
 * Import boundaries (npm run lint, part of npm test). A bounded context is reachable from outside
 * its folder only through its index.ts, and another context may take only types from it: a context
 * uses another's services through ports it declares itself, bound at the composition root
 * (libs/composition). The infrastructure libraries below may be imported anywhere, deeply; they
 * import no context.
 */
const tsParser = require('@typescript-eslint/parser');
const cqrs = require('./scripts/eslint/cqrs-rules.js');

const INFRASTRUCTURE = ['platform', 'event-store', 'read-store', 'blob-store', 'runtime', 'document', 'testing', 'composition'];
const infrastructure = INFRASTRUCTURE.join('|');

/** `…/<lib>/src/<anything but index>` of a library that is not infrastructure: a context's internals. */
const contextInternals = {
  regex: `^((\\.\\./)+(libs/)?(?!(${infrastructure})/)[^/.]+/src|#(?!(${infrastructure})(/|$))[^/]+)/(?!index$).+`,
  message:
    "import a bounded context only through its index.ts ('#<context>'); to use another context's service, declare a port in your context and bind it in libs/composition/src/contexts.ts",
};

/** A relative path out of one library into another, where its alias ('#<lib>/…') belongs. */
const relativeIntoLibrary = {
  regex: `^(\\.\\./)+libs/|^(\\.\\./){2,}(?!src/)[^/.]+/src(/|$)`,
  message: "import another library through its alias ('#<lib>' or '#<lib>/<path>', package.json \"imports\"), not a relative path",
};

/** Any bounded context at all, index included. */
const anyContext = {
  regex: `^((\\.\\./)+(libs/)?(?!(${infrastructure})/)[^/.]+/src|#(?!(${infrastructure})(/|$))[^/]+)(/.*)?$`,
  message: 'infrastructure libraries know no bounded context: the composition root (libs/composition) lists them',
};

/** A context's index (`'#teams'`), as an esquery regex on an import's source. */
const contextIndex = `/^((\\.\\.\\/)+(libs\\/)?(?!(${infrastructure})\\/)[^\\/.]+\\/src|#(?!(${infrastructure})(\\/|$))[^\\/]+)(\\/index)?$/`;
const valueFromContext =
  "a bounded context takes only types from another context's index ('import type'): to use its services, declare a port in your context and bind it in libs/composition/src/contexts.ts";
/**
 * Request shapes are a context's published language: a controller may take another context's
 * `…Query` and `…Body` classes (validation and the OpenAPI schema come with them), nothing else.
 */
const notRequestShape = `ImportSpecifier[importKind!='type'][imported.name!=/(Query|Body)$/]`;
const valueFromContextInController = `${valueFromContext} (a controller may also take its request shapes, the '…Query' and '…Body' classes)`;
const CONTEXT_FILES = { files: ['libs/*/src/**/*.ts'], ignores: [`libs/{${INFRASTRUCTURE.join(',')}}/**`, '**/*.spec.ts', '**/*.e2e.ts'] };
/** The restrictions on what a file takes from another context's index; `imports` selects the import declarations refused. */
const fromOtherContexts = (imports, message) => [
  'error',
  { selector: imports, message },
  { selector: `ExportNamedDeclaration[exportKind!='type'][source.value=${contextIndex}]`, message },
  { selector: `ExportAllDeclaration[exportKind!='type'][source.value=${contextIndex}]`, message },
  { selector: `ImportExpression[source.value=${contextIndex}]`, message },
];

module.exports = [
  { ignores: ['dist/**', 'node_modules/**', 'data/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tsParser, sourceType: 'module' },
    // Only the boundary rules run: type checking is tsc's job, style is not checked.
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: { 'no-restricted-imports': ['error', { patterns: [contextInternals, relativeIntoLibrary] }] },
  },
  {
    files: ['libs/{platform,event-store,read-store,blob-store,runtime,document}/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [contextInternals, anyContext, relativeIntoLibrary] }] },
  },
  {
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    plugins: { cqrs },
    rules: { 'cqrs/handler-beside-message': 'error' },
  },
  {
    files: ['apps/**/*.controller.ts', 'libs/**/*.controller.ts'],
    plugins: { cqrs },
    rules: { 'cqrs/controller-buses-only': 'error' },
  },
  {
    // Inside a context, values (classes, functions, tokens) from another context are refused; specs may
    // wire contexts together as the composition root does.
    ...CONTEXT_FILES,
    rules: {
      'no-restricted-syntax': fromOtherContexts(`ImportDeclaration[importKind!='type'][source.value=${contextIndex}]`, valueFromContext),
    },
  },
  {
    ...CONTEXT_FILES,
    files: ['libs/*/src/**/*.controller.ts'],
    rules: {
      'no-restricted-syntax': fromOtherContexts(
        `ImportDeclaration[importKind!='type'][source.value=${contextIndex}]:has(${notRequestShape}, ImportDefaultSpecifier, ImportNamespaceSpecifier)`,
        valueFromContextInController,
      ),
    },
  },
];
