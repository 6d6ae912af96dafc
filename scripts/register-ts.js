// Lets a child process or worker thread `require` TypeScript sources, compiled by SWC with
// decorator metadata, the same way Jest compiles them. Use: node -r ./scripts/register-ts.js file.ts
const { transformSync } = require('@swc/core');
const { readFileSync } = require('node:fs');
const SWC_OPTIONS = require('./swc-options.js');

require.extensions['.ts'] = function compileTypeScript(module, filename) {
  const { code } = transformSync(readFileSync(filename, 'utf8'), { ...SWC_OPTIONS, filename });
  module._compile(code, filename);
};
