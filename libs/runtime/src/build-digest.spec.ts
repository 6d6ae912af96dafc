import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDigest } from './build-digest';

const roots: string[] = [];

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'build-digest-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('the build digest', () => {
  afterAll(() => {
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });

  const code = { 'spaces/src/space.projections.js': 'apply()', 'platform/src/ids.js': 'newId()' };

  it('is the same for the same code', () => {
    expect(buildDigest(tree(code))).toBe(buildDigest(tree(code)));
  });

  it('changes when any code file changes, not only a projection', () => {
    expect(buildDigest(tree({ ...code, 'platform/src/ids.js': 'newId(32)' }))).not.toBe(buildDigest(tree(code)));
  });

  it('leaves tests and declarations out', () => {
    expect(buildDigest(tree({ ...code, 'spaces/src/space.decider.spec.ts': 'it()', 'spaces/src/index.d.ts': 'export {}' }))).toBe(
      buildDigest(tree(code)),
    );
  });
});
