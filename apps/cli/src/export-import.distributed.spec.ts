/**
 * Export and import through KurrentDB and GridFS: an embedded instance's export imported into the
 * distributed stores, exported from there again, reads the same. Runs against EVENTSTORE_URL and
 * MONGODB_URL or testcontainers; skipped otherwise, with the reason printed by the global setup.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { MongoDBContainer, type StartedMongoDBContainer } from '@testcontainers/mongodb';
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';
import { FsBlobStore } from '#blob-store/fs/fs-blob-store';
import { KurrentDbEventStore } from '#event-store/kurrentdb/kurrentdb-event-store';
import { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';
import { configuredUrl, externalServiceAvailable } from '../../../test/support/external-services';
import { runCli } from './cli';
import { ORIGINAL_RECORDED_AT, type ExportedEvent } from './export-import';
import { capturedIo } from './testing/captured-io';

const available = externalServiceAvailable('kurrentdb') && externalServiceAvailable('mongodb');

function exportedEvents(directory: string): Array<Omit<ExportedEvent, 'position' | 'recordedAt'>> {
  return gunzipSync(readFileSync(join(directory, 'events.ndjson.gz')))
    .toString('utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as ExportedEvent)
    .map(({ position, recordedAt, ...event }) => ({ ...event, metadata: { ...event.metadata, [ORIGINAL_RECORDED_AT]: undefined } }));
}

(available ? describe : describe.skip)('export and import through KurrentDB and GridFS', () => {
  let kurrent: StartedTestContainer | undefined;
  let mongo: StartedMongoDBContainer | undefined;
  let env: NodeJS.ProcessEnv;
  let root: string;

  beforeAll(async () => {
    let eventStoreUrl = process.env.TEST_CONTAINER_RUNTIME ? undefined : configuredUrl('kurrentdb');
    if (!eventStoreUrl) {
      kurrent = await new GenericContainer('docker.kurrent.io/kurrent-latest/kurrentdb:25.1')
        .withEnvironment({ KURRENTDB_INSECURE: 'true', KURRENTDB_RUN_PROJECTIONS: 'None', KURRENTDB_MEM_DB: 'true' })
        .withExposedPorts(2113)
        .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCodeMatching((status) => status >= 200 && status < 300))
        .withStartupTimeout(120_000)
        .start();
      eventStoreUrl = `kurrentdb://${kurrent.getHost()}:${kurrent.getMappedPort(2113)}?tls=false`;
    }
    let mongodbUrl = configuredUrl('mongodb');
    if (!mongodbUrl) {
      mongo = await new MongoDBContainer('mongo:8').start();
      mongodbUrl = `${mongo.getConnectionString()}?directConnection=true`;
    }
    // A database of its own: the import refuses one that holds documents.
    const url = new URL(mongodbUrl);
    url.pathname = `/export_${randomBytes(6).toString('hex')}`;
    env = { EVENTSTORE_URL: eventStoreUrl, MONGODB_URL: url.toString() };
    root = mkdtempSync(join(tmpdir(), 'cli-export-'));
  }, 300_000);

  afterAll(async () => {
    if (root) rmSync(root, { recursive: true, force: true });
    await kurrent?.stop();
    await mongo?.stop();
  });

  it('imports an embedded export into empty stores, and exports the same events and blobs back', async () => {
    // Given an embedded instance's export
    const dataDir = join(root, 'data');
    const events = LmdbEventStore.open(join(dataDir, 'events'));
    const blobs = new FsBlobStore(join(dataDir, 'blobs'));
    const body = await blobs.put(Buffer.from('a page body'));
    const file = await blobs.put(Buffer.alloc(100 * 1024, 3));
    await events.appendToStream(
      `page-${randomBytes(4).toString('hex')}`,
      [
        { type: 'PageCreated', data: { body: body.hash }, metadata: { actor: 'ada' } },
        { type: 'FileAttached', data: { file: file.hash }, metadata: { actor: 'ada' } },
      ],
      'no_stream',
    );
    await blobs.close();
    await events.close();
    expect(await runCli(['export', join(root, 'from-embedded')], capturedIo().io, { DATA_DIR: dataDir })).toBe(0);

    const probe = KurrentDbEventStore.connect(env.EVENTSTORE_URL!);
    const empty = (await probe.headPosition()) === null;
    await probe.close();
    if (!empty) {
      process.stdout.write('[skip] EVENTSTORE_URL holds events already: the import into KurrentDB needs an empty one.\n');
      return;
    }

    // When it is imported into the distributed stores, then exported from them
    const imported = capturedIo();
    expect(await runCli(['import', join(root, 'from-embedded')], imported.io, env)).toBe(0);
    expect(imported.stdout()).toMatch(/projector: it builds the MongoDB read models/);
    expect(await runCli(['export', join(root, 'from-distributed')], capturedIo().io, env)).toBe(0);

    // Then both exports hold the same events and blobs
    expect(exportedEvents(join(root, 'from-distributed'))).toEqual(exportedEvents(join(root, 'from-embedded')));
    expect(readdirSync(join(root, 'from-distributed', 'blobs')).sort()).toEqual(readdirSync(join(root, 'from-embedded', 'blobs')).sort());

    // And a second import is refused: the target is no longer empty
    const again = capturedIo();
    expect(await runCli(['import', join(root, 'from-embedded')], again.io, env)).toBe(1);
    expect(again.stderr()).toMatch(/already holds events/);
  }, 120_000);
});
