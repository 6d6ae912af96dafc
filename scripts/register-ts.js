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

// The '#<lib>' subpath imports (package.json "imports") point Node at the compiled files in dist/;
// the sources run through this hook resolve them to the TypeScript files instead (their "types"
// target), as tsc and Jest do. Requests from node_modules are left to Node.
const Module = require('node:module');
const { join: joinPath } = require('node:path');
const ALIASES = Object.entries(require('../package.json').imports ?? {}).filter(([, target]) => typeof target?.types === 'string');
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function resolveSourceAlias(request, parent, ...rest) {
  if (request.startsWith('#') && !parent?.filename?.includes('node_modules')) {
    for (const [key, { types }] of ALIASES) {
      const wildcard = key.endsWith('/*') && request.startsWith(key.slice(0, -1));
      if (request !== key && !wildcard) continue;
      const source = wildcard ? types.replace('*', request.slice(key.length - 1)) : types;
      return resolveFilename.call(this, joinPath(__dirname, '..', source), parent, ...rest);
    }
  }
  return resolveFilename.call(this, request, parent, ...rest);
};
