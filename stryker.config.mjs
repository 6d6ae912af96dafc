// Mutation testing of the domain's rules (docs/testing.md): the deciders, the access and permission
// modules, the signers and verifiers, and the projections' idempotency guard, against the specs of
// the fast tier (`*.spec.ts`) that hold them. One bounded context per run (MUTATION_CONTEXT): the
// Jest runner loads every spec file of the run for each mutant, so a run over one context's specs
// is minutes where one over all of them would be hours. `npm run test:mutation` runs each context in
// turn; `MUTATION_CONTEXTS=comments npm run test:mutation` runs one.

/** Per context: its mutated files beyond its deciders and access modules. */
const EXTRA_MUTATE = {
  platform: ['libs/platform/src/permissions.ts'],
  sso: ['libs/sso/src/saml-access.ts'],
  sites: ['libs/sites/src/site.readers.ts'],
  // Signers and verifiers: download URLs (the presenter's URL signing only), tunnel signatures, visitor claims.
  content: ['libs/content/src/content.presenter.ts:203-228'],
  integrations: ['libs/integrations/src/delivery/tunnel-delivery.ts:13-52'],
  organizations: ['libs/organizations/src/visitor-claims.ts'],
  // The projections' idempotency guard: a document is written by an event only while its stamp is before the event's.
  'read-store': ['libs/read-store/src/projections/projection.ts'],
};
/** The specs that hold those rules, by file name, within the context's folder. */
const RULE_SPECS = [
  '*.decider.spec.ts',
  '*.decider.*.spec.ts',
  '*.access.spec.ts',
  'saml-access*.spec.ts',
  '*permissions.spec.ts',
  'site.readers.spec.ts',
  'download-urls.spec.ts',
  'tunnel-*.spec.ts',
  'visitor-claims.spec.ts',
  'projections/projection*.spec.ts',
];

const context = process.env.MUTATION_CONTEXT;
if (!context) throw new Error('set MUTATION_CONTEXT to a folder of libs/ (npm run test:mutation runs every context)');
const mutate = [`libs/${context}/src/**/*.decider.ts`, `libs/${context}/src/**/*.access.ts`, ...(EXTRA_MUTATE[context] ?? [])];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'jest',
  jest: {
    projectType: 'custom',
    configFile: 'jest.config.js',
    // The context's rule specs only: never the service-starting `*.e2e.ts` suites.
    config: { testMatch: RULE_SPECS.map((name) => `**/libs/${context}/src/**/${name}`) },
    enableFindRelatedTests: false,
  },
  // Each mutant runs only the specs that cover it.
  coverageAnalysis: 'perTest',
  // Type errors a mutant introduces are not checked: SWC strips types, so such a mutant simply runs.
  checkers: [],
  mutate,
  // The sandbox copy holds what the specs load only: the libraries, the apps, the test support and
  // the build set-up (Jest's roots and its SWC options).
  ignorePatterns: [
    '/*',
    '!/libs',
    '!/apps',
    '!/test',
    '/test/*',
    '!/test/support',
    '!/scripts',
    '!/jest.config.js',
    '!/package.json',
    '!/tsconfig*.json',
  ],
  // Type checks are SWC's to skip: no `// @ts-nocheck` is needed in the sandbox.
  disableTypeChecks: false,
  incrementalFile: `reports/mutation/${context}.incremental.json`,
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${context}.html` },
  jsonReporter: { fileName: `reports/mutation/${context}.json` },
  concurrency: 1,
  timeoutMS: 10000,
  dryRunTimeoutMinutes: 20,
  // A static mutant (a module-level constant) needs the whole test set per mutant: 4% of the mutants,
  // most of the time. They are left out (reported as ignored).
  ignoreStatic: true,
  thresholds: { high: 90, low: 85, break: null },
};
