'use strict';
/**
 * Builds `dist/` with tsc only when a source changed since the last successful build, so that
 * `npm start` does not spend a full compilation (10 s and more) on every start.
 *
 * "Changed" compares modification times: the newest file or directory under the sources (a
 * directory's time moves when a file in it is added, removed or renamed) against a stamp written
 * after each successful build and dated when that build started, so an edit made during a build
 * is still seen as newer. A failed build writes no stamp: the next start tries again.
 *
 *   node scripts/build.js            build if stale
 *   node scripts/build.js --force    build anyway
 *   node scripts/build.js --prepare  the `prepare` script: as `npm install` ends (see `prepare`)
 */
const { spawnSync } = require('node:child_process');
const { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
/** Everything `tsc -p tsconfig.build.json` compiles or depends on. */
const SOURCE_DIRECTORIES = ['apps', 'libs', 'bench'];
const SOURCE_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
const STAMP = join(ROOT, 'dist', '.build-stamp');
const ENTRY = join(ROOT, 'dist', 'apps', 'api', 'src', 'main.js');

function newestIn(directory) {
  let newest = statSync(directory).mtimeMs;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(directory, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestIn(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function newestSource() {
  let newest = 0;
  for (const directory of SOURCE_DIRECTORIES)
    if (existsSync(join(ROOT, directory))) newest = Math.max(newest, newestIn(join(ROOT, directory)));
  for (const file of SOURCE_FILES) if (existsSync(join(ROOT, file))) newest = Math.max(newest, statSync(join(ROOT, file)).mtimeMs);
  return newest;
}

/** Why `dist/` needs building, or null when it is current. */
function staleness() {
  if (!existsSync(ENTRY)) return 'no build yet';
  if (!existsSync(STAMP)) return 'no successful build recorded';
  return newestSource() > statSync(STAMP).mtimeMs ? 'sources changed since the last build' : null;
}

/** Runs tsc; true when it succeeded (and the stamp is written). */
function build() {
  const started = new Date();
  const tsc = require.resolve('typescript/bin/tsc', { paths: [ROOT] });
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) return false;
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  writeFileSync(STAMP, `${started.toISOString()}\n`);
  utimesSync(STAMP, started, started);
  return true;
}

/** Builds when stale; false when a needed build failed. */
function buildIfStale({ force = false, quiet = false } = {}) {
  const reason = force ? 'forced' : staleness();
  if (reason === null) return true;
  if (!quiet) process.stderr.write(`building (${reason})…\n`);
  return build();
}

/**
 * `npm install` builds, so that the first `npm start` is fast. Skipped under CI (`CI` set), where
 * `npm test` never uses `dist/` and the build would only add time, and never fatal: a tree that
 * does not compile yet still installs, and `npm start` reports the errors.
 */
function prepare() {
  if (process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0') return;
  if (!buildIfStale()) process.stderr.write('the build failed; `npm start` will build again and show the errors\n');
}

module.exports = { buildIfStale, prepare, staleness };

if (require.main === module) {
  const args = process.argv.slice(2);
  if (args.includes('--prepare')) prepare();
  else process.exitCode = buildIfStale({ force: args.includes('--force') }) ? 0 : 1;
}
