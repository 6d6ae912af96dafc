import { mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { SmallBlobPacks } from './small-blob-packs';

const keyOf = (text: string): Buffer => createHash('sha256').update(text).digest();

describe('SmallBlobPacks', () => {
  let dir: string;
  let packs: SmallBlobPacks;

  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'small-blob-packs-')), 'packs');
  });

  afterEach(async () => {
    await packs.close();
    rmSync(join(dir, '..'), { recursive: true, force: true });
  });

  const packFiles = (): string[] => readdirSync(dir).filter((name) => name.endsWith('.pack')).sort();

  it('given puts in turns that would take the pack past its limit, then the next turn starts a new pack', async () => {
    packs = new SmallBlobPacks(dir, false, { maxPackBytes: 10 });
    await packs.put(keyOf('a'), Buffer.from('123456'));
    await packs.put(keyOf('b'), Buffer.from('7890'));
    await packs.put(keyOf('c'), Buffer.from('abc'));
    expect(packFiles()).toEqual(['1.pack', '2.pack']);
    expect(readFileSync(join(dir, '1.pack'), 'utf8')).toBe('1234567890');
    expect((await packs.read(keyOf('c')))?.toString()).toBe('abc');
  });

  it('given a put larger than the limit, then it goes alone into a new pack', async () => {
    packs = new SmallBlobPacks(dir, false, { maxPackBytes: 4 });
    await packs.put(keyOf('a'), Buffer.from('12'));
    await packs.put(keyOf('big'), Buffer.from('0123456789'));
    expect(packFiles()).toEqual(['1.pack', '2.pack']);
    expect((await packs.read(keyOf('big')))?.toString()).toBe('0123456789');
  });

  it('given puts not yet written, when closing, then close waits for them and a new instance reads them', async () => {
    packs = new SmallBlobPacks(dir, false);
    const putting = packs.put(keyOf('late'), Buffer.from('late bytes'));
    await packs.close();
    await putting;
    packs = new SmallBlobPacks(dir, false);
    expect((await packs.read(keyOf('late')))?.toString()).toBe('late bytes');
  });

  it('given an index entry whose pack was cut short, then the read fails instead of answering other bytes', async () => {
    packs = new SmallBlobPacks(dir, true);
    await packs.put(keyOf('x'), Buffer.from('complete'));
    truncateSync(join(dir, '1.pack'), 3);
    await expect(packs.read(keyOf('x'))).rejects.toThrow(/ends before the blob/);
  });

  it('given an unknown key, then read and size answer undefined and remove does nothing', async () => {
    packs = new SmallBlobPacks(dir, false);
    expect(await packs.read(keyOf('nothing'))).toBeUndefined();
    expect(packs.size(keyOf('nothing'))).toBeUndefined();
    await packs.remove(keyOf('nothing'));
    expect(packFiles()).toEqual([]);
  });
});
