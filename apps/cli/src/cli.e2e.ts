import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';
import type { NewEvent } from '#event-store/event-store.port';
import { MemoryReadStore } from '#read-store/memory/memory-read-store';
import { service } from '#composition/contexts';
import { CHECKPOINTS, projectionsFingerprint } from '#read-store/projections/projection-runner';
import { buildDigest } from '#runtime/build-digest';
import { parseSeedOptions, runCli, USAGE } from './cli';
import { defaultSeedWorkers } from './seed-content';
import type { SeedManifest } from './seed';
import { capturedIo } from './testing/captured-io';

const ADMIN = { type: 'system', id: 'admin', label: 'Administrator' };
const ALICE_ID = 'u-alice';

describe('cli', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cli-'));
    env = { DATA_DIR: dataDir };
    const store = LmdbEventStore.open(join(dataDir, 'events'));
    const meta = { actor: ADMIN, source: 'api', occurredAt: '2024-05-01T10:00:00.000Z' };
    await store.appendToStream(
      `user-${ALICE_ID}`,
      [
        {
          type: 'UserCreated',
          data: {
            userId: ALICE_ID,
            email: 'alice@example.com',
            displayName: 'Alice',
            photoURL: null,
            createdAt: '2024-05-01T10:00:00.000Z',
          },
          metadata: meta,
        },
      ],
      'no_stream',
    );
    await store.appendToStream(
      'user-u-bob',
      [
        {
          type: 'UserCreated',
          data: { userId: 'u-bob', email: 'bob@example.com', displayName: 'Bob', photoURL: null, createdAt: '2024-05-01T10:00:00.000Z' },
          metadata: meta,
        },
      ],
      'no_stream',
    );
    await store.appendToStream(
      'accesstoken-t1',
      [
        {
          type: 'AccessTokenIssued',
          data: { tokenId: 't1', userId: ALICE_ID, tokenHash: 'h1', issuedAt: '2024-05-01T10:00:01.000Z' },
          metadata: { ...meta, actor: { type: 'user', id: ALICE_ID, label: 'Alice  Liddell' } },
        },
      ],
      'no_stream',
    );
    // A long stream, so that the rebuild goes through several batches and reports progress on the way.
    const bulk: NewEvent[] = Array.from({ length: 1200 }, (_, i) => ({ type: 'NoteWritten', data: { i }, metadata: meta }));
    await store.appendToStream('note-bulk', bulk, 'no_stream');
    await store.close();
  });

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  describe('history', () => {
    it('prints a stream’s events, one line each: revision position recordedAt type actor data', async () => {
      const run = capturedIo();
      expect(await runCli(['history', 'accesstoken-t1'], run.io, env)).toBe(0);
      expect(run.stdout()).toMatch(
        /^0 3 \d{4}-\d{2}-\d{2}T[\d:.]+Z AccessTokenIssued Alice Liddell \{"tokenId":"t1","userId":"u-alice","tokenHash":"h1","issuedAt":"2024-05-01T10:00:01.000Z"\}\n$/,
      );
      expect(run.stderr()).toBe('');
    });

    it('prints every event of a long stream, in order', async () => {
      const run = capturedIo();
      expect(await runCli(['history', 'note-bulk'], run.io, env)).toBe(0);
      const lines = run.stdout().trimEnd().split('\n');
      expect(lines).toHaveLength(1200);
      expect(lines[0]).toMatch(/^0 4 \S+ NoteWritten Administrator \{"i":0\}$/);
      expect(lines[1199]).toMatch(/^1199 1203 \S+ NoteWritten Administrator \{"i":1199\}$/);
    });

    it('prints JSON lines with --json', async () => {
      const run = capturedIo();
      expect(await runCli(['history', '--json', `user-${ALICE_ID}`], run.io, env)).toBe(0);
      const lines = run
        .stdout()
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines).toEqual([
        {
          object: 'event',
          id: expect.any(String),
          streamId: `user-${ALICE_ID}`,
          revision: 0,
          position: '1',
          type: 'UserCreated',
          data: expect.objectContaining({ userId: ALICE_ID, displayName: 'Alice' }),
          metadata: expect.objectContaining({ actor: ADMIN }),
          recordedAt: expect.any(String),
        },
      ]);
    });

    it('given an unknown stream, then a message and exit 1', async () => {
      const run = capturedIo();
      expect(await runCli(['history', 'space-nothing'], run.io, env)).toBe(1);
      expect(run.stderr()).toBe("no stream 'space-nothing'\n");
      expect(run.stdout()).toBe('');
    });

    it('given no stream name, an invalid one, or an unknown option, then usage and exit 64', async () => {
      for (const args of [['history'], ['history', 'nodash'], ['history', 'user-x', '--yaml'], ['history', 'a-1', 'b-2']]) {
        const run = capturedIo();
        expect(await runCli(args, run.io, env)).toBe(64);
        expect(run.stderr()).toContain('Usage: npm run cli');
      }
    });
  });

  describe('rebuild', () => {
    it('replays the log, reporting progress and a summary with the documents per collection', async () => {
      const run = capturedIo();
      expect(await runCli(['rebuild'], run.io, env)).toBe(0);
      const progress = run.stderr().trimEnd().split('\n');
      expect(progress).toEqual([
        'rebuilding read models: 40% (500 events)',
        'rebuilding read models: 80% (1000 events)',
        'rebuilding read models: 100% (1203 events)',
        expect.stringMatching(/^rebuilt read models from 1203 events in \d+\.\d s$/),
      ]);
      const out = run.stdout();
      expect(out).toContain('Embedded mode: the service keeps its read models and checkpoints in');
      expect(out).toContain('into fresh\nread models there');
      expect(out).toMatch(/Replayed 1203 events in \d+\.\d s\./);
      // One line per collection of every projection (the list grows with the contexts).
      expect(out).toMatch(/Documents per collection:\n( {2}\S+ +\d+\n)+/);
      expect(out).toMatch(/^ {2}access_tokens +1$/m);
      expect(out).toMatch(/^ {2}users +2$/m);
      expect(out).toContain('The whole log replays without error.');
    });

    it('leaves checkpoints with the service’s own fingerprint, so that the next start resumes from the rebuild instead of replaying again', async () => {
      const run = capturedIo();
      expect(await runCli(['rebuild'], run.io, env)).toBe(0);
      const reads = MemoryReadStore.open(join(dataDir, 'readmodels'));
      try {
        const checkpoints = (await reads.collection<{ _id: string; fingerprint?: string }>(CHECKPOINTS).find({}, { limit: 1000 })).items;
        expect(checkpoints.length).toBeGreaterThan(0);
        const expected = projectionsFingerprint(service().projections, buildDigest());
        expect(new Set(checkpoints.map((checkpoint) => checkpoint.fingerprint))).toEqual(new Set([expected]));
      } finally {
        await reads.close();
      }
    });

    it('releases the data directory when done, so it can run again', async () => {
      const run = capturedIo();
      expect(await runCli(['rebuild'], run.io, env)).toBe(0);
    });

    it('reports a projection that fails and exits 1', async () => {
      const run = capturedIo();
      const failing = {
        name: 'failing',
        collections: ['things'],
        handles: ['NoteWritten'],
        apply: async () => Promise.reject(new Error('cannot apply NoteWritten')),
      };
      expect(await runCli(['rebuild'], run.io, env, { projections: [failing] })).toBe(1);
      expect(run.stderr()).toContain('rebuild failed: cannot apply NoteWritten');
    });

    it('rejects arguments with usage and exit 64', async () => {
      const run = capturedIo();
      expect(await runCli(['rebuild', '--fast'], run.io, env)).toBe(64);
      expect(run.stderr()).toContain("rebuild takes no arguments, got '--fast'");
    });
  });

  describe('seed', () => {
    // 2 organizations of 4 members, 6 spaces, 30 pages, filled up to 3,000 events.
    const SMALL = ['--events', '3000', '--organizations', '2', '--members', '4', '--spaces', '6', '--pages', '30'];
    let seedDir: string;
    let seedEnv: NodeJS.ProcessEnv;
    let seeded: ReturnType<typeof capturedIo>;

    beforeAll(async () => {
      seedDir = mkdtempSync(join(tmpdir(), 'cli-seed-'));
      seedEnv = { DATA_DIR: seedDir };
      seeded = capturedIo();
      expect(await runCli(['seed', ...SMALL], seeded.io, seedEnv)).toBe(0);
    }, 60_000);
    afterAll(() => rmSync(seedDir, { recursive: true, force: true }));

    it('writes the requested number of events, reporting progress and a summary', () => {
      expect(seeded.stdout()).toMatch(/^Seeded 3000 events in \d+\.\d s \(\d+ events\/s\)\.$/m);
      expect(seeded.stderr().trimEnd().split('\n').at(-1)).toMatch(/^seeding: 100% \(3000 events, \d+ events\/s\)$/);
    });

    it('writes a manifest of the organizations, their admin tokens, spaces and pages', () => {
      const manifest = JSON.parse(readFileSync(join(seedDir, 'seed.json'), 'utf8')) as SeedManifest;
      expect(manifest.events).toBe(3000);
      expect(manifest.organizations).toHaveLength(2);
      expect(manifest.organizations.flatMap((organization) => organization.spaces)).toHaveLength(6);
      expect(manifest.organizations.flatMap((organization) => organization.spaces.flatMap((space) => space.pages))).toHaveLength(30);
      expect(manifest.organizations[0].adminToken).toMatch(/^dpt_/);
      expect(statSync(join(seedDir, 'seed.json')).mode & 0o777).toBe(0o600);
    });

    it('makes a log the service’s projections replay without error into read models of the requested sizes', async () => {
      const run = capturedIo();
      expect(await runCli(['rebuild'], run.io, seedEnv)).toBe(0);
      expect(run.stdout()).toContain('Replayed 3000 events');
      const reads = MemoryReadStore.open(join(seedDir, 'readmodels'));
      try {
        const count = (collection: string) => reads.collection(collection).count();
        expect(await count('organizations')).toBe(2);
        expect(await count('users')).toBe(8);
        expect(await count('members')).toBe(8);
        expect(await count('teams')).toBe(6);
        expect(await count('collections')).toBe(2);
        expect(await count('spaces')).toBe(6);
        expect(await count('content_heads')).toBe(6);
        // Per space: its initial empty revision, a first revision with the pages, then two edits.
        expect(await count('content_revisions')).toBe(24);
        expect(await count('change_requests')).toBe(6);
        expect(await count('comments')).toBe(24);
        expect(await count('comment_replies')).toBe(24);
        expect(await count('sites')).toBe(2);
        expect(await count('integrations')).toBe(1);
        expect(await count('integration_installations')).toBe(2);
      } finally {
        await reads.close();
      }
    });

    it('refuses a log that already holds events unless told to append (exit 1)', async () => {
      const run = capturedIo();
      expect(await runCli(['seed', ...SMALL], run.io, seedEnv)).toBe(1);
      expect(run.stderr()).toContain('already holds events');
      expect(run.stderr()).toContain('--append');
    });

    it('refuses distributed mode with a message (exit 78)', async () => {
      const run = capturedIo();
      expect(
        await runCli(['seed'], run.io, {
          ...seedEnv,
          EVENTSTORE_URL: 'kurrentdb://localhost:2113',
          MONGODB_URL: 'mongodb://localhost:27017',
        }),
      ).toBe(78);
      expect(run.stderr()).toContain('seed writes the embedded stores only');
    });

    it('refuses bad options with usage (exit 64)', async () => {
      for (const args of [
        ['--events'],
        ['--events', 'many'],
        ['--spaces', '0'],
        ['--pages', '-5'],
        ['--colour', '3'],
        ['--organizations', '10', '--spaces', '5'],
        ['--spaces', '10', '--pages', '9'],
      ]) {
        const run = capturedIo();
        expect(await runCli(['seed', ...args], run.io, seedEnv)).toBe(64);
        expect(run.stderr()).toContain('Usage: npm run cli');
      }
    });

    it('takes sizes as separate or inline values, with digit separators', () => {
      expect(parseSeedOptions(['--events=2_000_000', '--spaces', '100', '--pages', '400', '--append'])).toEqual({
        options: { events: 2_000_000, organizations: 100, members: 20, spaces: 100, pages: 400 },
        append: true,
        workers: defaultSeedWorkers(),
      });
    });

    it('builds the content on as many worker threads as asked, from 1 to 64', () => {
      expect(parseSeedOptions(['--workers', '3'])).toMatchObject({ workers: 3 });
      expect(parseSeedOptions(['--workers=1'])).toMatchObject({ workers: 1 });
      expect(parseSeedOptions(['--workers', '0'])).toBe('--workers must be at least 1');
      expect(parseSeedOptions(['--workers', '65'])).toBe("--workers must be a whole number from 1 to 64, got '65'");
    });
  });

  describe('a data directory held by a running service', () => {
    let service: LmdbEventStore;
    beforeAll(() => {
      service = LmdbEventStore.open(join(dataDir, 'events'));
    });
    afterAll(() => service.close());

    it('makes rebuild exit 2, showing the lock message and a hint to stop the service', async () => {
      const run = capturedIo();
      expect(await runCli(['rebuild'], run.io, env)).toBe(2);
      expect(run.stderr()).toContain(`the data directory ${join(dataDir, 'events')} is in use by process ${process.pid}`);
      expect(run.stderr()).toContain('The embedded service locks its data directory while it runs. Stop it');
    });

    it('makes history exit 2, pointing at the admin endpoint', async () => {
      const run = capturedIo();
      expect(await runCli(['history', 'user-u-bob'], run.io, env)).toBe(2);
      expect(run.stderr()).toContain('GET /v1/admin/streams/user-u-bob');
    });
  });

  describe('command line', () => {
    it('prints usage for --help, help and no command (exit 0)', async () => {
      for (const args of [['--help'], ['help'], [], ['history', '--help']]) {
        const run = capturedIo();
        expect(await runCli(args, run.io, env)).toBe(0);
        expect(run.stdout()).toBe(USAGE);
      }
    });

    it('prints usage for an unknown command (exit 64)', async () => {
      const run = capturedIo();
      expect(await runCli(['compact'], run.io, env)).toBe(64);
      expect(run.stderr()).toBe(`unknown command 'compact'\n\n${USAGE}`);
      expect(await runCli(['toString'], capturedIo().io, env)).toBe(64);
    });

    it('given a missing data directory, then a message and exit 1, creating nothing', async () => {
      const missing = join(dataDir, 'nowhere');
      const run = capturedIo();
      expect(await runCli(['rebuild'], run.io, { DATA_DIR: missing })).toBe(1);
      expect(run.stderr()).toContain(`no event log at ${join(missing, 'events')}`);
      expect(existsSync(missing)).toBe(false);
    });

    it('given a bad configuration, then the message and exit 78', async () => {
      const run = capturedIo();
      expect(await runCli(['rebuild'], run.io, { ...env, PORT: 'eighty' })).toBe(78);
      expect(run.stderr()).toBe("configuration error: PORT must be an integer in 0..65535, got 'eighty'\n");
    });
  });
});
