import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exited, spawnTypeScript } from '../../../../test/support/child-process';
import { DurableWrites } from './durable-writes';

const roots: string[] = [];
function root(): string {
  const made = mkdtempSync(join(tmpdir(), 'durable-writes-'));
  roots.push(made);
  mkdirSync(join(made, 'tmp'));
  return made;
}
afterAll(() => roots.forEach((made) => rmSync(made, { recursive: true, force: true })));

describe('DurableWrites', () => {
  const writes = new DurableWrites();
  afterAll(() => writes.close());

  it('given bytes, when written, then they are at the final path, in new fan-out directories, and no temporary is left', async () => {
    const dir = root();
    await writes.write(dir, join(dir, 'tmp', 'a.tmp'), join(dir, 'ab', 'cd', 'abcd'), Buffer.from('content'));
    expect({ content: readFileSync(join(dir, 'ab', 'cd', 'abcd'), 'utf8'), tmp: readdirSync(join(dir, 'tmp')) }).toEqual({
      content: 'content',
      tmp: [],
    });
  });

  it('given a file already at the final path, then it is left as it is and no temporary is written', async () => {
    const dir = root();
    mkdirSync(join(dir, 'ab', 'cd'), { recursive: true });
    writeFileSync(join(dir, 'ab', 'cd', 'abcd'), 'first');
    await writes.write(dir, join(dir, 'tmp', 'a.tmp'), join(dir, 'ab', 'cd', 'abcd'), Buffer.from('second'));
    expect({ content: readFileSync(join(dir, 'ab', 'cd', 'abcd'), 'utf8'), tmp: readdirSync(join(dir, 'tmp')) }).toEqual({
      content: 'first',
      tmp: [],
    });
  });

  it('given a final path that cannot be made, then the write fails with the system error and its temporary is removed', async () => {
    const dir = root();
    writeFileSync(join(dir, 'ab'), 'a file where a directory should be');
    await expect(writes.write(dir, join(dir, 'tmp', 'a.tmp'), join(dir, 'ab', 'cd', 'abcd'), Buffer.from('content'))).rejects.toMatchObject(
      { code: 'ENOTDIR' },
    );
    expect(readdirSync(join(dir, 'tmp'))).toEqual([]);
  });

  it('given a temporary path already taken, then the write fails and the file there is kept', async () => {
    const dir = root();
    writeFileSync(join(dir, 'tmp', 'a.tmp'), 'another put');
    await expect(writes.write(dir, join(dir, 'tmp', 'a.tmp'), join(dir, 'ab', 'cd', 'abcd'), Buffer.from('content'))).rejects.toMatchObject(
      { code: 'EEXIST' },
    );
    expect(readFileSync(join(dir, 'tmp', 'a.tmp'), 'utf8')).toBe('another put');
  });

  it('given forty writes at once, then every one lands with its own bytes', async () => {
    const dir = root();
    const names = Array.from({ length: 40 }, (_, i) => `blob${i}`);
    await Promise.all(
      names.map((name) =>
        writes.write(dir, join(dir, 'tmp', `${name}.tmp`), join(dir, name.slice(-2), 'xx', name), Buffer.from(`bytes of ${name}`)),
      ),
    );
    expect(names.map((name) => readFileSync(join(dir, name.slice(-2), 'xx', name), 'utf8'))).toEqual(
      names.map((name) => `bytes of ${name}`),
    );
  });

  it('given a thread left idle, then it stops, and a later write starts another', async () => {
    const dir = root();
    const briefly = new DurableWrites({ idleMs: 20 });
    await briefly.write(dir, join(dir, 'tmp', 'a.tmp'), join(dir, 'ab', 'cd', 'a'), Buffer.from('first'));
    expect(briefly.threads).toBe(1);
    // Waits until the idle thread has stopped (the spec's own time-out bounds it).
    while (briefly.threads > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await briefly.write(dir, join(dir, 'tmp', 'b.tmp'), join(dir, 'ab', 'cd', 'b'), Buffer.from('second'));
    expect({ threads: briefly.threads, second: readFileSync(join(dir, 'ab', 'cd', 'b'), 'utf8') }).toEqual({
      threads: 1,
      second: 'second',
    });
    await briefly.close();
  });

  it('given a process whose only work is a write under way, then it lives until the write is answered and then exits', async () => {
    const dir = root();
    const lines: string[] = [];
    const child = spawnTypeScript('durable-write.ts', [dir], (line) => lines.push(line));
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    expect({ lines, content: readFileSync(join(dir, 'ab', 'cd', 'child'), 'utf8') }).toEqual({
      lines: ['written'],
      content: 'from a child',
    });
  });
});
