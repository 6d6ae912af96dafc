import { mkdtempSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DamagedEventLogError } from '../errors';
import type { RecordedEvent } from '../event-store.port';
import { LmdbEventStore } from './lmdb-event-store';
import { salvageEventLog } from './lmdb-salvage';

/**
 * A log of `count` events over a few streams, some large enough for LMDB's overflow pages. The
 * appends of one event-loop turn share a transaction and its disk flush, so they are made 50 at a
 * time: one flush per append made the fixtures cost seconds of waiting on the disk.
 */
async function writeLog(directory: string, count: number): Promise<RecordedEvent[]> {
  const store = LmdbEventStore.open(directory);
  for (let first = 0; first < count; first += 50) {
    const appends: Promise<unknown>[] = [];
    for (let i = first; i < Math.min(first + 50, count); i++) {
      appends.push(
        store.appendToStream(
          `note-${i % 7}`,
          [{ type: i % 2 ? 'NoteWritten' : 'NoteEdited', data: { i, text: 'x'.repeat(i % 10 === 0 ? 6000 : 200) } }],
          'any',
        ),
      );
    }
    await Promise.all(appends);
  }
  const events = await store.readAll({ maxCount: count });
  await store.close();
  return events;
}

function halve(directory: string): void {
  const file = join(directory, 'data.mdb');
  truncateSync(file, Math.floor(statSync(file).size / 2));
}

describe('the embedded event log, damaged', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'log-damage-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('given a log cut in half, when it is opened, then it is refused with an error naming the file and the salvage command (no SIGBUS)', async () => {
    const directory = join(root, 'events');
    await writeLog(directory, 400);
    halve(directory);

    const opening = () => LmdbEventStore.open(directory);

    expect(opening).toThrow(DamagedEventLogError);
    expect(opening).toThrow(new RegExp(`${join(directory, 'data.mdb')}.*cut short.*npm run cli -- salvage-log`));
  });

  it('given a sound log, when it is salvaged, then every event is kept, as it was', async () => {
    const directory = join(root, 'events');
    const written = await writeLog(directory, 300);

    const result = await salvageEventLog(directory, join(root, 'salvaged'));

    expect(result).toMatchObject({ kept: 300, found: 300, highestFound: 300 });
    expect(result.firstMissing).toBeUndefined();
    const salvaged = LmdbEventStore.open(join(root, 'salvaged'));
    expect(await salvaged.readAll({ maxCount: 1000 })).toEqual(written);
    expect(await salvaged.readStream('note-3')).toEqual(written.filter((event) => event.streamId === 'note-3'));
    await salvaged.close();
  });

  it('given a log cut in half, when it is salvaged, then the intact prefix is kept, event for event, in a log that opens and takes appends', async () => {
    const directory = join(root, 'events');
    const written = await writeLog(directory, 1000);
    halve(directory);

    const result = await salvageEventLog(directory, join(root, 'salvaged'));

    expect(result.problem).toMatch(/cut short/);
    expect(result.kept).toBeGreaterThan(0);
    expect(result.kept).toBeLessThan(1000);
    expect(result.firstMissing).toBe(result.kept + 1);
    const salvaged = LmdbEventStore.open(join(root, 'salvaged'));
    expect(await salvaged.readAll({ maxCount: 2000 })).toEqual(written.slice(0, result.kept));
    const last = written[result.kept - 1];
    await salvaged.appendToStream(last.streamId, [{ type: 'NoteWritten', data: { after: 'salvage' } }], last.revision);
    expect(await salvaged.headPosition()).toBe(BigInt(result.kept + 1));
    await salvaged.close();
  });

  it('given a target that is not empty, when salvaging, then it refuses and writes nothing', async () => {
    const directory = join(root, 'events');
    await writeLog(directory, 10);

    await expect(salvageEventLog(directory, directory)).rejects.toThrow(/not empty/);
  });
});
