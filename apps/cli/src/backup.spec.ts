import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsBlobStore } from '#blob-store/fs/fs-blob-store';
import { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';
import type { RecordedEvent } from '#event-store/event-store.port';
import { blobsIn } from './blob-snapshot';
import { runCli } from './cli';
import { capturedIo } from './testing/captured-io';

const SMALL = Buffer.from('a page body');
const LARGE = Buffer.alloc(100 * 1024, 7);

let root: string;
const directory = (name: string) => join(root, name);

/** An embedded DATA_DIR with two streams (one append of two events) and a small and a large blob. */
async function instance(dataDir: string): Promise<void> {
  const events = LmdbEventStore.open(join(dataDir, 'events'));
  const blobs = new FsBlobStore(join(dataDir, 'blobs'));
  const small = await blobs.put(SMALL);
  const large = await blobs.put(LARGE);
  await events.appendToStream('space-s1', [{ type: 'SpaceCreated', data: { spaceId: 's1' }, metadata: { actor: 'ada' } }], 'no_stream');
  await events.appendToStream(
    'page-p1',
    [
      { type: 'PageCreated', data: { body: small.hash }, metadata: { actor: 'ada' } },
      { type: 'FileAttached', data: { file: large.hash }, metadata: { actor: 'ada' } },
    ],
    'no_stream',
  );
  await blobs.close();
  await events.close();
}

async function allEvents(dataDir: string): Promise<RecordedEvent[]> {
  const events = LmdbEventStore.open(join(dataDir, 'events'));
  try {
    return await events.readAll();
  } finally {
    await events.close();
  }
}

const hashes = (blobRoot: string) => [...blobsIn(blobRoot)].map((blob) => blob.hash).sort();

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cli-backup-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('blobsIn', () => {
  it('finds the blobs of the packs and of the files, each checked against its hash', async () => {
    await instance(directory('data'));
    expect(
      [...blobsIn(join(directory('data'), 'blobs'))].map(({ hash, size }) => ({ hash, size })).sort((a, b) => a.size - b.size),
    ).toEqual([
      { hash: expect.stringMatching(/^[0-9a-f]{64}$/), size: SMALL.length },
      { hash: expect.stringMatching(/^[0-9a-f]{64}$/), size: LARGE.length },
    ]);
  });

  it('stops a pack at a torn record past its indexed end', async () => {
    await instance(directory('data'));
    const packs = join(directory('data'), 'blobs', 'packs');
    const pack = readdirSync(packs).find((name) => name.endsWith('.pack'))!;
    writeFileSync(join(packs, pack), Buffer.concat([readFileSync(join(packs, pack)), Buffer.alloc(36, 9), Buffer.from('torn')]));
    expect(hashes(join(directory('data'), 'blobs'))).toHaveLength(2);
  });
});

describe('backup and restore', () => {
  it('copies the log and the blobs, and a restore puts them back as they were', async () => {
    await instance(directory('data'));
    const backup = capturedIo();
    expect(await runCli(['backup', directory('backup')], backup.io, { DATA_DIR: directory('data') })).toBe(0);
    expect(JSON.parse(readFileSync(join(directory('backup'), 'backup.json'), 'utf8'))).toMatchObject({
      format: 'docs-platform-backup',
      version: 1,
      log: { position: '3', events: 3 },
      blobs: { count: 2, bytes: SMALL.length + LARGE.length },
    });

    const restore = capturedIo();
    expect(await runCli(['restore', directory('backup')], restore.io, { DATA_DIR: directory('restored') })).toBe(0);
    expect(restore.stdout()).toMatch(/3 events up to position 3, 2 blobs/);
    expect(await allEvents(directory('restored'))).toEqual(await allEvents(directory('data')));
    expect(hashes(join(directory('restored'), 'blobs'))).toEqual(hashes(join(directory('data'), 'blobs')));
  });

  it('refuses to back up into a directory that holds something', async () => {
    await instance(directory('data'));
    mkdirSync(directory('backup'));
    writeFileSync(join(directory('backup'), 'notes.txt'), 'mine');
    const run = capturedIo();
    expect(await runCli(['backup', directory('backup')], run.io, { DATA_DIR: directory('data') })).toBe(1);
    expect(run.stderr()).toMatch(/is not empty/);
  });

  it('refuses to restore into a DATA_DIR that is not empty, without --force', async () => {
    await instance(directory('data'));
    expect(await runCli(['backup', directory('backup')], capturedIo().io, { DATA_DIR: directory('data') })).toBe(0);
    await instance(directory('other'));
    const run = capturedIo();
    expect(await runCli(['restore', directory('backup')], run.io, { DATA_DIR: directory('other') })).toBe(1);
    expect(run.stderr()).toMatch(/is not empty .*--force/);
  });

  it('with --force, moves what DATA_DIR held aside and restores', async () => {
    await instance(directory('data'));
    expect(await runCli(['backup', directory('backup')], capturedIo().io, { DATA_DIR: directory('data') })).toBe(0);
    mkdirSync(directory('other'));
    writeFileSync(join(directory('other'), 'admin-token'), 'old');
    const run = capturedIo();
    expect(await runCli(['restore', '--force', directory('backup')], run.io, { DATA_DIR: directory('other') })).toBe(0);
    expect(run.stdout()).toMatch(/Moved what .* held to .*before-restore/);
    expect(await allEvents(directory('other'))).toHaveLength(3);
  });

  it('refuses to restore into a DATA_DIR a running service holds, even with --force', async () => {
    await instance(directory('data'));
    expect(await runCli(['backup', directory('backup')], capturedIo().io, { DATA_DIR: directory('data') })).toBe(0);
    const held = LmdbEventStore.open(join(directory('data'), 'events'));
    try {
      const run = capturedIo();
      expect(await runCli(['restore', '--force', directory('backup')], run.io, { DATA_DIR: directory('data') })).toBe(2);
      expect(run.stderr()).toMatch(/in use by process/);
    } finally {
      await held.close();
    }
  });

  it('refuses a backup whose log does not match its manifest', async () => {
    await instance(directory('data'));
    expect(await runCli(['backup', directory('backup')], capturedIo().io, { DATA_DIR: directory('data') })).toBe(0);
    const manifest = JSON.parse(readFileSync(join(directory('backup'), 'backup.json'), 'utf8'));
    writeFileSync(
      join(directory('backup'), 'backup.json'),
      JSON.stringify({ ...manifest, log: { ...manifest.log, sha256: '0'.repeat(64) } }),
    );
    const run = capturedIo();
    expect(await runCli(['restore', directory('backup')], run.io, { DATA_DIR: directory('restored') })).toBe(1);
    expect(run.stderr()).toMatch(/does not match the manifest/);
  });
});

describe('export and import', () => {
  it('carries every event (stream, revision, id, type, data, metadata, position) and every blob into an empty DATA_DIR', async () => {
    await instance(directory('data'));
    const exported = capturedIo();
    expect(await runCli(['export', directory('export')], exported.io, { DATA_DIR: directory('data') })).toBe(0);
    expect(readdirSync(join(directory('export'), 'blobs'))).toHaveLength(2);

    const imported = capturedIo();
    expect(await runCli(['import', directory('export')], imported.io, { DATA_DIR: directory('fresh') })).toBe(0);
    expect(imported.stdout()).toMatch(/next start .* builds the read models/);
    const before = await allEvents(directory('data'));
    const after = await allEvents(directory('fresh'));
    expect(after).toEqual(before);
    expect(hashes(join(directory('fresh'), 'blobs'))).toEqual(hashes(join(directory('data'), 'blobs')));
  });

  it('refuses to import into a log that holds events', async () => {
    await instance(directory('data'));
    expect(await runCli(['export', directory('export')], capturedIo().io, { DATA_DIR: directory('data') })).toBe(0);
    const run = capturedIo();
    expect(await runCli(['import', directory('export')], run.io, { DATA_DIR: directory('data') })).toBe(1);
    expect(run.stderr()).toMatch(/already holds/);
  });

  it('refuses to export an instance a running service holds', async () => {
    await instance(directory('data'));
    const held = LmdbEventStore.open(join(directory('data'), 'events'));
    try {
      const run = capturedIo();
      expect(await runCli(['export', directory('export')], run.io, { DATA_DIR: directory('data') })).toBe(2);
      expect(run.stderr()).toMatch(/backup/);
    } finally {
      await held.close();
    }
  });
});
