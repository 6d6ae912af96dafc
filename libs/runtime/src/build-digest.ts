import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The code of the service's libraries: `libs/` of the source tree, or of the compiled `dist/`. */
const LIBS = join(__dirname, '..', '..');

let cached: string | null = null;

/**
 * A digest of the code the service runs (every `.js` and `.ts` file under its `libs/`, tests
 * left out). Persisted read models are kept across restarts of the same code; any other code may
 * project differently (a projection's helper changed), so its read models are built again.
 */
export function buildDigest(root: string = LIBS): string {
  if (root === LIBS && cached !== null) return cached;
  const hash = createHash('sha256');
  const visit = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') visit(path);
      } else if (/\.(js|ts)$/.test(entry.name) && !/\.(spec|e2e|contract)\.(js|ts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        hash.update(relative(root, path)).update('\0').update(readFileSync(path)).update('\0');
      }
    }
  };
  visit(root);
  const digest = hash.digest('base64url');
  if (root === LIBS) cached = digest;
  return digest;
}

/**
 * What the projection runner is told about the code on stores of `mode`: in embedded mode the
 * code's digest, so that the persisted read models are kept across restarts of the same code only.
 * The service's runner and the CLI's rebuild take it from here: a rebuild whose fingerprint the
 * service did not recognize would be replayed again at the next start.
 */
export function projectionBuild(mode: 'embedded' | 'distributed'): { build?: string } {
  return mode === 'embedded' ? { build: buildDigest() } : {};
}
