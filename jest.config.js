/** Jest runs TypeScript through SWC: decorator metadata on, ESM-only @nestjs packages transformed. */
const swc = require('./scripts/swc-options.js');
/**
 * Names of the packages in node_modules (nested ones included) whose package.json says "type": "module".
 * A name is transformed wherever it is installed: transforming a CommonJS copy of the same name is harmless.
 */
function esmOnlyPackages() {
  const fs = require('node:fs');
  const path = require('node:path');
  const names = new Set();
  const visit = (folder) => {
    const entries = fs.existsSync(folder) ? fs.readdirSync(folder) : [];
    for (const entry of entries) {
      if (entry.startsWith('.')) continue;
      const packages = entry.startsWith('@') ? fs.readdirSync(path.join(folder, entry)).map((scoped) => `${entry}/${scoped}`) : [entry];
      for (const name of packages) {
        try {
          const manifest = JSON.parse(fs.readFileSync(path.join(folder, name, 'package.json'), 'utf8'));
          if (manifest.type === 'module') names.add(name.replace(/[.+]/g, (c) => '\\' + c));
        } catch {
          continue; // not a package
        }
        visit(path.join(folder, name, 'node_modules'));
      }
    }
  };
  visit(path.join(__dirname, 'node_modules'));
  return [...names];
}

/**
 * The '#<lib>' subpath imports of package.json, mapped to the TypeScript sources (their "types"
 * target): Node's resolution would take the "default" target, the compiled files in dist/.
 */
function sourceAliases() {
  const mapper = {};
  for (const [key, target] of Object.entries(require('./package.json').imports ?? {})) {
    if (typeof target !== 'object' || typeof target.types !== 'string') continue;
    const source = `<rootDir>/${target.types.replace(/^\.\//, '')}`;
    if (key.endsWith('/*')) mapper[`^${key.slice(0, -1)}(.*)$`] = source.replace('*', '$1');
    else mapper[`^${key}$`] = source;
  }
  return mapper;
}

module.exports = {
  moduleNameMapper: sourceAliases(),
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.e2e.ts'],
  transform: { '^.+\\.(t|j|mj)s$': ['@swc/jest', swc] },
  // ES-module-only packages (every @nestjs package, the markdown toolchain, ...) are transformed to
  // CommonJS: Jest's module system cannot require them. Found by their package.json, not listed by hand.
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnlyPackages().join('|')})/)`],
  testTimeout: 60000,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  // Without durations from an earlier run, the end-to-end suites start before the unit specs.
  testSequencer: '<rootDir>/scripts/test-sequencer.js',
};
