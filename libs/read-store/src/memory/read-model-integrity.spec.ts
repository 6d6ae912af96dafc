import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, truncateSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryReadStore } from './memory-read-store';
import { readModelFileProblem } from './read-model-integrity';

/** A closed read-model file holding `count` documents in collection `pages`. */
async function writeReadModels(directory: string, count: number): Promise<void> {
  const store = MemoryReadStore.open(directory);
  for (let start = 0; start < count; start += 500) {
    await store.transaction(async (tx) => {
      for (let i = start; i < Math.min(count, start + 500); i++) await tx.collection('pages').put({ _id: `p${String(i).padStart(5, '0')}`, title: `Page ${i}`, body: 'x'.repeat(300) });
    });
  }
  await store.close();
}

function damagedCopies(root: string): string[] {
  return readdirSync(root).filter((name) => name.startsWith('readmodels.damaged-'));
}

describe('the read-model file, checked before it is mapped', () => {
  let root: string;
  let directory: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'readmodels-damage-'));
    directory = join(root, 'readmodels');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('given a file closed cleanly, when it is opened again, then it passes and its documents are there', async () => {
    await writeReadModels(directory, 2000);

    expect(readModelFileProblem(directory)).toBeUndefined();
    const store = MemoryReadStore.open(directory);

    expect(await store.collection('pages').count()).toBe(2000);
    expect(damagedCopies(root)).toEqual([]);
    await store.close();
  });

  it('given a file cut in half, when it is opened, then it is moved aside (no SIGBUS) and an empty store takes its place', async () => {
    await writeReadModels(directory, 2000);
    const file = join(directory, 'data.mdb');
    truncateSync(file, Math.floor(statSync(file).size / 2));

    expect(readModelFileProblem(directory)).toMatch(/cut short/);
    const store = MemoryReadStore.open(directory);

    expect(await store.collection('pages').count()).toBe(0);
    expect(damagedCopies(root)).toHaveLength(1);
    expect(existsSync(join(root, damagedCopies(root)[0], 'data.mdb'))).toBe(true);
    await store.close();
  });

  it('given 16 KiB of random bytes written inside a file closed cleanly, when it is opened, then its checksum fails and it is moved aside', async () => {
    await writeReadModels(directory, 2000);
    const file = join(directory, 'data.mdb');
    const fd = openSync(file, 'r+');
    writeSync(fd, randomBytes(16 * 1024), 0, 16 * 1024, Math.floor(statSync(file).size / 2 / 4096) * 4096);
    closeSync(fd);

    expect(readModelFileProblem(directory)).toMatch(/checksum/);
    const store = MemoryReadStore.open(directory);

    expect(await store.collection('pages').count()).toBe(0);
    expect(damagedCopies(root)).toHaveLength(1);
    await store.close();
  });

  it('given a file whose meta pages were overwritten, when it is opened, then it is moved aside', async () => {
    await writeReadModels(directory, 10);
    const fd = openSync(join(directory, 'data.mdb'), 'r+');
    writeSync(fd, randomBytes(8192), 0, 8192, 0);
    closeSync(fd);

    expect(readModelFileProblem(directory)).toMatch(/meta page 0/);
    const store = MemoryReadStore.open(directory);

    expect(await store.collection('pages').count()).toBe(0);
    expect(damagedCopies(root)).toHaveLength(1);
    await store.close();
  });

  it('given a store that is open, then the file carries no seal: a change while it is open is not taken for damage at the next open', async () => {
    await writeReadModels(directory, 10);
    const store = MemoryReadStore.open(directory);

    expect(existsSync(join(directory, 'integrity.json'))).toBe(false);
    await store.collection('pages').put({ _id: 'late', title: 'Late' });
    await store.close();

    expect(readModelFileProblem(directory)).toBeUndefined();
  });
});
