import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exited, spawnTypeScript } from '../../../../test/support/child-process';
import { LmdbEventStore } from './lmdb-event-store';

/**
 * Durability across real process death: a child appends from many concurrent appenders and prints
 * each acknowledgement; the test kill -9s it mid-burst and then reads the directory back.
 */
describe('LMDB event store across processes', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'lmdb-durability-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('given a burst of appends killed with SIGKILL, then every acknowledged event is readable and no batch is torn', async () => {
    const acknowledged = new Map<string, number>();
    let acks = 0;
    let killed!: () => void;
    const enoughAcks = new Promise<void>((resolve) => (killed = resolve));
    const child = spawnTypeScript('append-burst.ts', [directory, '25'], (line) => {
      const [word, stream, revision] = line.split(' ');
      if (word !== 'ack') return;
      acknowledged.set(stream, Number(revision));
      if (++acks === 2000) {
        child.kill('SIGKILL');
        killed();
      }
    });
    await Promise.race([enoughAcks, exited(child).then(({ code }) => Promise.reject(new Error(`child exited early with ${code}`)))]);
    expect(await exited(child)).toMatchObject({ signal: 'SIGKILL' });

    const store = LmdbEventStore.open(directory); // the kernel released the dead child's lock
    try {
      for (const [stream, revision] of acknowledged) {
        expect(await store.streamRevision(stream)).toBeGreaterThanOrEqual(revision);
      }
      const batches = new Map<string, { size: number; seen: number }>();
      let previous = 0n;
      let total = 0;
      for (
        let page = await store.readAll({ maxCount: 5000 });
        page.length > 0;
        page = await store.readAll({ after: previous, maxCount: 5000 })
      ) {
        for (const event of page) {
          expect(event.position > previous).toBe(true);
          previous = event.position;
          total++;
          const { batch, size } = event.data as { batch: string; size: number };
          const entry = batches.get(batch) ?? { size, seen: 0 };
          entry.seen++;
          batches.set(batch, entry);
        }
      }
      expect(total).toBeGreaterThan(2000);
      for (const [batch, { size, seen }] of batches) expect({ batch, seen }).toEqual({ batch, seen: size });
    } finally {
      await store.close();
    }
  });

  it('given a directory held by a live process, when a second process opens it, then it is refused with a clear error', async () => {
    const holder = LmdbEventStore.open(directory);
    try {
      const lines: string[] = [];
      const child = spawnTypeScript('open-store.ts', [directory], (line) => lines.push(line));
      expect((await exited(child)).code).toBe(3);
      expect(lines.join('\n')).toMatch(
        new RegExp(
          `^DataDirectoryLockedError: the data directory .* is in use by process ${process.pid}; stop the other service using it, or choose another DATA_DIR`,
        ),
      );
    } finally {
      await holder.close();
    }
    const lines: string[] = [];
    const child = spawnTypeScript('open-store.ts', [directory], (line) => lines.push(line));
    expect((await exited(child)).code).toBe(0);
    expect(lines).toEqual(['opened']);
  });
});
