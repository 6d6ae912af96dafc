// Lets a child process or worker thread `require` TypeScript sources, compiled by SWC with
// decorator metadata, the same way Jest compiles them. Use: node -r ./scripts/register-ts.js file.ts
//
// Compiled sources are kept in node_modules/.cache/register-ts, one file per source (named by a hash
// of its path, the SWC version and options) that records the hash of the source it was compiled
// from: tests start the service (and its worker threads) many times, and each start would otherwise
// compile the same few hundred files again.
const { transformSync } = require('@swc/core');
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { threadId } = require('node:worker_threads');
const SWC_OPTIONS = require('./swc-options.js');

const CACHE = join(__dirname, '..', 'node_modules', '.cache', 'register-ts');
const SALT = JSON.stringify([require('@swc/core/package.json').version, SWC_OPTIONS]);

require.extensions['.ts'] = function compileTypeScript(module, filename) {
  const source = readFileSync(filename, 'utf8');
  const header = `// ${createHash('sha256').update(source).digest('hex')}\n`;
  const cached = join(CACHE, `${createHash('sha256').update(SALT).update('\0').update(filename).digest('hex')}.js`);
  let code;
  try {
    const kept = readFileSync(cached, 'utf8');
    if (kept.startsWith(header)) code = kept.slice(header.length);
  } catch {
    // not compiled yet
  }
  if (code === undefined) {
    code = transformSync(source, { ...SWC_OPTIONS, filename }).code;
    try {
      // Written whole, then renamed: a process reading it never sees half a file.
      mkdirSync(CACHE, { recursive: true });
      const partial = `${cached}.${process.pid}-${threadId}.tmp`;
      writeFileSync(partial, header + code);
      renameSync(partial, cached);
    } catch {
      // A cache that cannot be written costs the next start a compilation, nothing more.
    }
  }
  module._compile(code, filename);
};
