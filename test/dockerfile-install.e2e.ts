/**
 * The image's install step works with this repository's lockfile. The Dockerfile's build stage is
 * read as written: the files its first COPY brings (package.json and the lockfile), its ENV lines,
 * and every RUN before the sources are copied are run the same way outside Docker, in an empty
 * directory, with npm preferring its cache (the checkout's own `npm install` filled it), so nothing
 * is fetched that this checkout's install did not already fetch.
 *
 * Why: `npm ci` refuses a lockfile that npm wrote without other platforms' optional packages (as
 * it does where the registry does not serve them), so an image built with it can fail at its first
 * step; the project installs with `npm install` everywhere (.ci/run, README, Dockerfile).
 *
 * The step runs with npm's `package-lock-only` setting: npm builds the tree from the lockfile and
 * package.json exactly as a full install does (the resolution `npm ci` fails at), runs the root
 * package's lifecycle scripts (`prepare`, here with no sources beside it, as in the image) and
 * writes the lockfile back, which must come out unchanged; it only leaves out unpacking the
 * thousand packages and their install scripts. Those are what the checkout's own `npm install`
 * does, the same command on the same lockfile into an empty node_modules on a clean clone, before
 * any test runs; doing it a second time here proved nothing more and took most of this suite's
 * 100 seconds.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');

interface InstallSteps {
  files: string[];
  env: Record<string, string>;
  commands: string[];
}

/** The build stage's steps up to the first COPY of something other than the package files. */
function installSteps(dockerfile: string): InstallSteps {
  const lines = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const steps: InstallSteps = { files: [], env: {}, commands: [] };
  let copied = false;
  for (const line of lines.slice(lines.findIndex((line) => /^FROM\s/i.test(line)) + 1)) {
    const [instruction, ...rest] = line.split(/\s+/);
    const argument = rest.join(' ');
    if (/^FROM$/i.test(instruction)) break;
    if (/^COPY$/i.test(instruction)) {
      if (copied) break;
      steps.files = rest.slice(0, -1);
      copied = true;
    } else if (/^ENV$/i.test(instruction)) {
      for (const [, name, value] of argument.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S+)/g))
        steps.env[name] = value.replace(/^"|"$/g, '');
    } else if (/^RUN$/i.test(instruction) && copied) {
      steps.commands.push(argument);
    }
  }
  return steps;
}

describe('the Dockerfile', () => {
  const steps = installSteps(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));

  it('copies the package files before installing, and installs with npm install, not npm ci', () => {
    expect(steps.files).toEqual(['package.json', 'package-lock.json']);
    expect(steps.commands).toEqual([expect.stringMatching(/^npm install /)]);
  });

  it('resolves the locked dependencies with its own install step, outside Docker, leaving the lockfile unchanged', () => {
    const directory = mkdtempSync(join(tmpdir(), 'dockerfile-install-'));
    try {
      for (const file of steps.files) copyFileSync(join(ROOT, file), join(directory, file));
      for (const command of steps.commands) {
        const run = spawnSync('sh', ['-c', command], {
          cwd: directory,
          env: {
            ...process.env,
            ...steps.env,
            npm_config_package_lock_only: 'true',
            npm_config_prefer_offline: 'true',
            npm_config_update_notifier: 'false',
          },
          encoding: 'utf8',
          timeout: 120_000,
        });
        if (run.status !== 0) throw new Error(`'${command}' exited with ${run.status ?? run.signal}:\n${(run.stderr ?? '').slice(-2000)}`);
      }
      expect(readFileSync(join(directory, 'package-lock.json'), 'utf8')).toBe(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }, 180_000);
});
