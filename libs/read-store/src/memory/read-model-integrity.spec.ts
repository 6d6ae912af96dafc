import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
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
      for (let i = start; i < Math.min(count, start + 500); i++)
        await tx.collection('pages').put({ _id: `p${String(i).padStart(5, '0')}`, title: `Page ${i}`, body: 'x'.repeat(300) });
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

  describe('a file over the size whose checksum is compared in the background (here every file: a limit of 0)', () => {
    const inBackground = (onDamaged?: (problem: string) => void) => ({ syncChecksumLimit: 0, onDamaged });

    /** Makes the seal record another checksum: to the check, the file's bytes changed while it was closed. */
    function alterSeal(): void {
      const sealPath = join(directory, 'integrity.json');
      const seal = JSON.parse(readFileSync(sealPath, 'utf8')) as { size: number; crc32: number };
      writeFileSync(sealPath, JSON.stringify({ ...seal, crc32: (seal.crc32 + 1) % 2 ** 32 }));
    }

    it('given a file closed cleanly, when it is opened, then it answers at once, the check finds nothing, and a close with no write puts back its seal', async () => {
      await writeReadModels(directory, 2000);
      const seal = readFileSync(join(directory, 'integrity.json'), 'utf8');
      const onDamaged = jest.fn();

      const store = MemoryReadStore.open(directory, inBackground(onDamaged));
      expect(await store.collection('pages').count()).toBe(2000);
      await store.whenWritten();
      await store.close();

      expect(onDamaged).not.toHaveBeenCalled();
      expect(readFileSync(join(directory, 'integrity.json'), 'utf8')).toBe(seal);
      expect(readModelFileProblem(directory)).toBeUndefined();
    });

    it('given a commit while the check runs, then it is answered at once and lands in the file once the check passed', async () => {
      await writeReadModels(directory, 10);
      const store = MemoryReadStore.open(directory, inBackground());

      await store.collection('pages').put({ _id: 'late', title: 'Late' });
      expect(await store.collection('pages').get('late')).toMatchObject({ title: 'Late' });
      await store.whenWritten();
      await store.close();

      expect(readModelFileProblem(directory)).toBeUndefined();
      const reopened = MemoryReadStore.open(directory);
      expect(await reopened.collection('pages').get('late')).toMatchObject({ title: 'Late' });
      await reopened.close();
    });

    it('given a file that no longer matches its seal, when it is opened, then it opens, and the check marks it damaged, says so to onDamaged and to health, and leaves it unsealed', async () => {
      await writeReadModels(directory, 2000);
      alterSeal();
      let store: MemoryReadStore | undefined;
      const problem = await new Promise<string>((resolve) => (store = MemoryReadStore.open(directory, inBackground(resolve))));
      const health = await store!.health();
      await store!.close();

      expect(problem).toMatch(/data\.mdb does not match the checksum of its last clean close/);
      expect(health).toEqual({
        ok: false,
        detail: expect.stringMatching(/^readModels: damaged, rebuilding on restart \(.*data\.mdb does not match the checksum/),
      });
      expect(existsSync(join(directory, 'integrity.json'))).toBe(false);
      expect(existsSync(join(directory, 'DAMAGED'))).toBe(true);
      expect(readModelFileProblem(directory)).toMatch(/marked damaged/);
    });

    it('given a file the check marked damaged, when it is opened again, then it is moved aside and an empty store takes its place', async () => {
      await writeReadModels(directory, 2000);
      alterSeal();
      let store: MemoryReadStore | undefined;
      await new Promise<void>(
        (resolve) =>
          (store = MemoryReadStore.open(
            directory,
            inBackground(() => resolve()),
          )),
      );
      await store!.close();

      const reopened = MemoryReadStore.open(directory, inBackground());

      expect(await reopened.collection('pages').count()).toBe(0);
      expect(damagedCopies(root)).toHaveLength(1);
      expect(existsSync(join(root, damagedCopies(root)[0], 'DAMAGED'))).toBe(true);
      await reopened.close();
    });
  });
});
