import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { SmallBlobPacks } from './small-blob-packs';
import { packRecords } from './testing/pack-records';

const keyOf = (text: string): Buffer => createHash('sha256').update(text).digest();

/** A pack record as the store writes it: the hash, the length (4 bytes), the bytes. */
function record(text: string, hash = keyOf(text)): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(Buffer.byteLength(text), 0);
  return Buffer.concat([hash, length, Buffer.from(text)]);
}

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

  const packFiles = (): string[] =>
    readdirSync(dir)
      .filter((name) => name.endsWith('.pack'))
      .sort();
  const reopen = async (): Promise<void> => {
    await packs.close();
    packs = new SmallBlobPacks(dir, false);
  };

  it('given puts that would take the pack past its limit (records with their 36-byte headers), then the next flush starts a new pack', async () => {
    packs = new SmallBlobPacks(dir, false, { maxPackBytes: 36 * 2 + 10 });
    await packs.put(keyOf('123456'), Buffer.from('123456'));
    await packs.put(keyOf('7890'), Buffer.from('7890'));
    await packs.put(keyOf('abc'), Buffer.from('abc'));
    expect(packFiles()).toEqual(['1.pack', '2.pack']);
    expect(packRecords(join(dir, '1.pack'))).toEqual(['123456', '7890']);
    expect((await packs.read(keyOf('abc')))?.toString()).toBe('abc');
  });

  it('given a put larger than the limit, then it goes alone into a new pack', async () => {
    packs = new SmallBlobPacks(dir, false, { maxPackBytes: 40 });
    await packs.put(keyOf('12'), Buffer.from('12'));
    await packs.put(keyOf('0123456789'), Buffer.from('0123456789'));
    expect(packFiles()).toEqual(['1.pack', '2.pack']);
    expect((await packs.read(keyOf('0123456789')))?.toString()).toBe('0123456789');
  });

  it('given puts not yet written, when closing, then close waits for them and a new instance reads them', async () => {
    packs = new SmallBlobPacks(dir, false);
    const putting = packs.put(keyOf('late bytes'), Buffer.from('late bytes'));
    await reopen();
    await putting;
    expect((await packs.read(keyOf('late bytes')))?.toString()).toBe('late bytes');
  });

  it('given records appended past the indexed offset (a crash before the index committed), then the next instance indexes them', async () => {
    packs = new SmallBlobPacks(dir, false);
    await packs.put(keyOf('indexed'), Buffer.from('indexed'));
    await packs.close();
    appendFileSync(join(dir, '1.pack'), Buffer.concat([record('only in the pack'), record('this one too')]));
    packs = new SmallBlobPacks(dir, false);
    expect((await packs.read(keyOf('only in the pack')))?.toString()).toBe('only in the pack');
    expect(packs.size(keyOf('this one too'))).toBe('this one too'.length);
    expect((await packs.read(keyOf('indexed')))?.toString()).toBe('indexed');
  });

  it('given a torn record at a pack`s end, then the records before it are indexed and it is not', async () => {
    packs = new SmallBlobPacks(dir, false);
    await packs.put(keyOf('first'), Buffer.from('first'));
    await packs.close();
    const whole = record('whole');
    appendFileSync(join(dir, '1.pack'), Buffer.concat([whole, record('torn at the end').subarray(0, 40)]));
    packs = new SmallBlobPacks(dir, false);
    expect((await packs.read(keyOf('whole')))?.toString()).toBe('whole');
    expect(await packs.read(keyOf('torn at the end'))).toBeUndefined();
  });

  it('given a record whose bytes do not match its hash, then nothing from it on is indexed', async () => {
    packs = new SmallBlobPacks(dir, false);
    await packs.put(keyOf('first'), Buffer.from('first'));
    await packs.close();
    appendFileSync(join(dir, '1.pack'), Buffer.concat([record('forged', keyOf('something else')), record('after it')]));
    packs = new SmallBlobPacks(dir, false);
    expect(await packs.read(keyOf('something else'))).toBeUndefined();
    expect(await packs.read(keyOf('after it'))).toBeUndefined();
    expect((await packs.read(keyOf('first')))?.toString()).toBe('first');
  });

  it('given a removed blob, then its record keeps its length but not its hash or bytes, and the next instance does not bring it back', async () => {
    packs = new SmallBlobPacks(dir, false);
    await packs.put(keyOf('a secret body'), Buffer.from('a secret body'));
    await packs.put(keyOf('kept'), Buffer.from('kept'));
    await packs.remove(keyOf('a secret body'));
    expect(packRecords(join(dir, '1.pack'))).toEqual(['<removed>', 'kept']);
    expect(readFileSync(join(dir, '1.pack')).includes('secret')).toBe(false);
    await reopen();
    expect(await packs.read(keyOf('a secret body'))).toBeUndefined();
    expect((await packs.read(keyOf('kept')))?.toString()).toBe('kept');
  });

  it('given an index entry whose pack was cut short, then the read fails instead of answering other bytes', async () => {
    packs = new SmallBlobPacks(dir, true);
    await packs.put(keyOf('complete'), Buffer.from('complete'));
    await packs.whenIndexed();
    truncateSync(join(dir, '1.pack'), 40);
    await expect(packs.read(keyOf('complete'))).rejects.toThrow(/ends before the blob/);
  });

  it('given an unknown key, then read and size answer undefined and remove does nothing', async () => {
    packs = new SmallBlobPacks(dir, false);
    expect(await packs.read(keyOf('nothing'))).toBeUndefined();
    expect(packs.size(keyOf('nothing'))).toBeUndefined();
    await packs.remove(keyOf('nothing'));
    expect(packFiles()).toEqual([]);
  });
});
