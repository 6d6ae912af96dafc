import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cannotSyncDirectory, fsyncPath, fsyncPathSync } from './fsync';

describe('fsyncPath and fsyncPathSync', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fsync-'));
    writeFileSync(join(dir, 'file'), 'content');
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('given a file and a directory, then both are synced without error', async () => {
    expect(() => fsyncPathSync(join(dir, 'file'))).not.toThrow();
    expect(() => fsyncPathSync(dir)).not.toThrow();
    await expect(fsyncPath(join(dir, 'file'))).resolves.toBeUndefined();
    await expect(fsyncPath(dir)).resolves.toBeUndefined();
  });

  it('given a path that does not exist, then the error is not swallowed', async () => {
    expect(() => fsyncPathSync(join(dir, 'missing'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    await expect(fsyncPath(join(dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it.each(['EISDIR', 'EPERM', 'EINVAL', 'EBADF'])(
    'given %s (a system where directories cannot be opened or synced), then the sync is skipped',
    (code) => {
      expect(cannotSyncDirectory(Object.assign(new Error(code), { code }))).toBe(true);
    },
  );

  it.each(['EIO', 'ENOSPC', 'ENOENT', undefined])('given %s, then the error is thrown', (code) => {
    expect(cannotSyncDirectory(Object.assign(new Error('failed'), { code }))).toBe(false);
  });
});
