import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';
import { configureLogging } from '#platform/logging';
import { ProjectionRunner } from '../projections/projection-runner';
import type { Projection } from '../projections/projection';
import { MemoryReadStore } from './memory-read-store';
import type { ReadModelFile } from './read-model-file';

/**
 * The read models' file out of space while the log still takes appends (its free pages): the
 * projections go on applying in memory, large collections included, and what was appended reads
 * back from memory; the file catches up once space is back.
 */
const directories: string[] = [];
function directory(): string {
  const made = mkdtempSync(join(tmpdir(), 'read-store-full-disk-'));
  directories.push(made);
  return made;
}
beforeAll(() => configureLogging('silent'));
afterAll(() => directories.forEach((made) => rmSync(made, { recursive: true, force: true })));

/** What LMDB reports when the disk is full (errno ENOSPC). */
const noSpace = () => Object.assign(new Error('No space left on device'), { code: 28 });

interface Created {
  id: string;
  title: string;
}

const orgs: Projection = {
  name: 'orgs',
  collections: ['orgs'],
  async apply(event, tx) {
    const { id, title } = event.data as Created;
    await tx.collection('orgs').put({ _id: id, title });
  },
};
/** Like the audit log: a large collection, written with `insert` (a second application fails). */
const audit: Projection = {
  name: 'audit',
  collections: ['audit'],
  large: ['audit'],
  indexes: [{ collection: 'audit', fields: { org: 1 } }],
  async apply(event, tx) {
    await tx.collection('audit').insert({ _id: event.id, org: (event.data as Created).id });
  },
};

type Injection = (file: ReadModelFile) => void;
const INJECTIONS: Array<[string, Injection]> = [
  ['the commit fails once LMDB writes it', (file) => void jest.spyOn(file, 'write').mockImplementation(() => Promise.reject(noSpace()))],
  [
    'the write to a large collection fails inside the commit',
    (file) =>
      void jest.spyOn(file.large, 'write').mockImplementation(() => {
        throw noSpace();
      }),
  ],
  [
    'LMDB refuses the commit when it is handed over',
    (file) =>
      void jest.spyOn(file, 'write').mockImplementation(() => {
        throw noSpace();
      }),
  ],
];

describe('the memory read store when its file is out of space', () => {
  let data: string;
  let events: LmdbEventStore;
  let reads: MemoryReadStore;
  let runner: ProjectionRunner;

  beforeEach(async () => {
    data = directory();
    events = LmdbEventStore.open(join(data, 'events'));
    reads = MemoryReadStore.open(join(data, 'readmodels'));
    runner = new ProjectionRunner(events, reads, [orgs, audit], { backoff: { initialMs: 10, maxMs: 50 } });
    await runner.start();
    await runner.whenCaughtUp();
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await runner.stop();
    await reads.close();
    await events.close();
  });

  const file = () => (reads as unknown as { file: ReadModelFile }).file;
  const create = (id: string, title: string) =>
    events.appendToStream(`org-${id}`, [{ type: 'OrgCreated', data: { id, title }, metadata: {} }], 'no_stream');

  it.each(INJECTIONS)(
    'given %s, when a create is appended, then the projections apply it and it reads back from memory, large collection included',
    async (_, inject) => {
      inject(file());
      const { position } = await create('o1', 'One');

      expect(await runner.waitFor(position, 30_000)).toBe(true);
      expect(runner.failure).toBeNull();
      expect(await reads.collection('orgs').get('o1')).toEqual({ _id: 'o1', title: 'One' });
      expect(await reads.collection('audit').count({ org: 'o1' })).toBe(1);
      expect(await reads.health()).toMatchObject({ ok: false, detail: expect.stringContaining('kept in memory, retried') });
    },
  );

  it('given commits kept in memory for lack of space, once space is back, then the file holds them, as a restart reads them', async () => {
    const write = jest.spyOn(file().large, 'write').mockImplementation(() => {
      throw noSpace();
    });
    const { position } = await create('o1', 'One');
    expect(await runner.waitFor(position, 30_000)).toBe(true);
    write.mockRestore();

    // The retry runs after a backoff of half a second.
    let health = await reads.health();
    for (let tries = 0; !health.ok && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      health = await reads.health();
    }
    expect(health).toEqual({ ok: true });
    await runner.stop();
    await reads.close();

    reads = MemoryReadStore.open(join(data, 'readmodels'));
    expect(await reads.collection('orgs').get('o1')).toEqual({ _id: 'o1', title: 'One' });
    expect(await reads.collection('audit').count({ org: 'o1' })).toBe(1);
    runner = new ProjectionRunner(events, reads, [orgs, audit]);
  });
});
