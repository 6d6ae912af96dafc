import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { copyFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import type { Db } from 'mongodb';
import { BLOB_HASH, type BlobStore } from '#blob-store/blob-store.port';
import { FsBlobStore } from '#blob-store/fs/fs-blob-store';
import type * as GridFsAdapter from '#blob-store/gridfs/gridfs-blob-store';
import type { EventStore, ExpectedRevision, NewEvent } from '#event-store/event-store.port';
import type * as KurrentDbAdapter from '#event-store/kurrentdb/kurrentdb-event-store';
import { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';
import type { AppConfig } from '#platform/config';
import type * as MongoConnection from '#read-store/mongodb/mongo-connection';
import { blobsIn } from './blob-snapshot';
import { EXIT, isEmbedded, messageOf, openFailed, usageError, type CliIo } from './cli';
import { readManifest } from './manifest';

/**
 * `export <dir>` and `import <dir>`: the event log and the blobs in a portable form, from and into
 * either mode. An export directory holds `events.ndjson.gz` (one event per line, in log order:
 * position, stream, revision, id, type, recordedAt, data, metadata), `blobs/<hash>` (the bytes)
 * and `manifest.json` (counts and the events file's SHA-256), written last. Both directions stream:
 * a page of events and a blob at a time.
 */

export const EXPORT_MANIFEST = 'manifest.json';
export const EXPORT_FORMAT = 'docs-platform-export';
export const EXPORT_VERSION = 1;
const EVENTS_FILE = 'events.ndjson.gz';
const PAGE = 1000;
/** Embedded import: appends in flight. lmdb-js runs their transactions in call order, so positions keep the export's order. */
const APPEND_WINDOW = 64;
/** Where an event imported into KurrentDB keeps the time its source recorded it: KurrentDB sets its own. */
export const ORIGINAL_RECORDED_AT = 'originalRecordedAt';

export interface ExportManifest {
  format: typeof EXPORT_FORMAT;
  version: number;
  exportedAt: string;
  source: 'embedded' | 'distributed';
  events: { file: string; count: number; lastPosition: string | null; sha256: string };
  blobs: { count: number; bytes: number };
}

/** One line of `events.ndjson.gz`. */
export interface ExportedEvent {
  position: string;
  stream: string;
  revision: number;
  id: string;
  type: string;
  recordedAt: string;
  data: unknown;
  metadata: Record<string, unknown>;
}

interface Source {
  mode: 'embedded' | 'distributed';
  events: EventStore;
  /** Every blob, each written to `path` by `save`. */
  blobs(): AsyncGenerator<{ hash: string; size: number; save(path: string): Promise<void> }>;
  close(): Promise<void>;
}

interface Target {
  mode: 'embedded' | 'distributed';
  events: EventStore;
  /** Appends with the source's recording time, where the target can set it (the embedded log). */
  appendRecorded?: (stream: string, events: NewEvent[], expected: ExpectedRevision, recordedAt: string) => Promise<unknown>;
  blobs: BlobStore;
  /** Appends may overlap: the store keeps their call order. */
  ordered: boolean;
  /** Distributed: the database of the read models and GridFS. */
  mongo?: Db;
  close(): Promise<void>;
}

/** `export <dir>`: the log and the blobs of a stopped embedded instance or of the distributed stores. */
export async function exportCommand(args: string[], io: CliIo, config: AppConfig): Promise<number> {
  const target = oneDirectory(args, 'export', io);
  if (typeof target === 'number') return target;
  if (existsSync(target) && readdirSync(target).length > 0) {
    io.stderr.write(`${target} is not empty: export into a new or empty directory\n`);
    return EXIT.failed;
  }
  let source: Source;
  try {
    source = await openSource(config);
  } catch (error) {
    return openFailed(error, io, 'Stop it and export again, or take a `backup` while it runs, restore it elsewhere and export from there.');
  }
  try {
    mkdirSync(join(target, 'blobs'), { recursive: true });
    const events = await exportEvents(source.events, join(target, EVENTS_FILE));
    io.stdout.write(
      `Exported ${events.count} events (up to position ${events.lastPosition ?? '(empty)'}) to ${join(target, EVENTS_FILE)}.\n`,
    );
    let count = 0;
    let bytes = 0;
    for await (const blob of source.blobs()) {
      await blob.save(join(target, 'blobs', blob.hash));
      count += 1;
      bytes += blob.size;
    }
    io.stdout.write(`Exported ${count} blobs (${bytes} bytes) to ${join(target, 'blobs')}.\n`);
    const manifest: ExportManifest = {
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      exportedAt: new Date().toISOString(),
      source: source.mode,
      events: { file: EVENTS_FILE, ...events },
      blobs: { count, bytes },
    };
    writeFileSync(join(target, `${EXPORT_MANIFEST}.tmp`), `${JSON.stringify(manifest, null, 2)}\n`);
    renameSync(join(target, `${EXPORT_MANIFEST}.tmp`), join(target, EXPORT_MANIFEST));
    io.stdout.write(`Export complete: ${join(target, EXPORT_MANIFEST)}.\n`);
    return EXIT.ok;
  } catch (error) {
    io.stderr.write(`export failed: ${messageOf(error)}\n`);
    return EXIT.failed;
  } finally {
    await source.close();
  }
}

/** `import <dir>`: an export into an empty embedded DATA_DIR, or into empty KurrentDB and GridFS. */
export async function importCommand(args: string[], io: CliIo, config: AppConfig): Promise<number> {
  const source = oneDirectory(args, 'import', io);
  if (typeof source === 'number') return source;
  let manifest: ExportManifest;
  try {
    manifest = await checkExport(source);
  } catch (error) {
    io.stderr.write(`${messageOf(error)}\n`);
    return EXIT.failed;
  }
  const embeddedRefusal = isEmbedded(config) ? embeddedTargetRefusal(config.dataDir) : undefined;
  if (embeddedRefusal) {
    io.stderr.write(`${embeddedRefusal}\n`);
    return EXIT.failed;
  }
  let target: Target;
  try {
    target = await openTarget(config);
  } catch (error) {
    return openFailed(error, io, 'Stop it; import into a data directory no service uses.');
  }
  try {
    const refusal = await targetRefusal(target, config);
    if (refusal) {
      io.stderr.write(`${refusal}\n`);
      return EXIT.failed;
    }
    // Blobs first: an event may name one, and a running projector reads it as soon as the event lands.
    let blobs = 0;
    for (const name of readdirSync(join(source, 'blobs')).sort()) {
      if (!BLOB_HASH.test(name)) continue;
      const stored = await target.blobs.put(createReadStream(join(source, 'blobs', name)));
      if (stored.hash !== name) throw new Error(`blobs/${name} does not match its name (its content hashes to ${stored.hash})`);
      blobs += 1;
    }
    if (target.blobs instanceof FsBlobStore) await target.blobs.flushToDisk();
    io.stdout.write(`Imported ${blobs} blobs.\n`);
    const events = await importEvents(join(source, manifest.events.file), target, config.eventBatchLimitBytes);
    if (events !== manifest.events.count) throw new Error(`imported ${events} events; the manifest says ${manifest.events.count}`);
    if (blobs !== manifest.blobs.count) throw new Error(`imported ${blobs} blobs; the manifest says ${manifest.blobs.count}`);
    io.stdout.write(
      `Imported ${events} events, with their streams, revisions, ids, types, data and metadata; each source recording time is in metadata.${ORIGINAL_RECORDED_AT}.\n`,
    );
    io.stdout.write(
      target.mode === 'embedded'
        ? `The next start of the service on ${resolve(config.dataDir)} builds the read models from the imported log (or run \`npm run cli -- rebuild\` first).\n`
        : 'Start (or restart) the projector: it builds the MongoDB read models from KurrentDB; API reads are complete once it has caught up.\n',
    );
    return EXIT.ok;
  } catch (error) {
    io.stderr.write(`import failed: ${messageOf(error)}\n`);
    return EXIT.failed;
  } finally {
    await target.close();
  }
}

/** The export's manifest once its events file matches it; an error saying what is wrong otherwise. */
export async function checkExport(directory: string): Promise<ExportManifest> {
  const path = join(directory, EXPORT_MANIFEST);
  const manifest = readManifest<ExportManifest>(directory, EXPORT_MANIFEST, 'export', EXPORT_FORMAT, EXPORT_VERSION);
  if (manifest.events?.file !== EVENTS_FILE) throw new Error(`${path} names an events file this version does not read`);
  const events = join(directory, EVENTS_FILE);
  if (!existsSync(events) || !existsSync(join(directory, 'blobs'))) throw new Error(`the export lacks ${EVENTS_FILE} or blobs/`);
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(events)) hash.update(chunk as Buffer);
  if (hash.digest('hex') !== manifest.events.sha256)
    throw new Error(`${events} does not match the manifest (damaged or changed since the export)`);
  return manifest;
}

/** Writes every event as a line of gzipped NDJSON, a page at a time; hashes the file as it is written. */
async function exportEvents(store: EventStore, path: string): Promise<{ count: number; lastPosition: string | null; sha256: string }> {
  const hash = createHash('sha256');
  let count = 0;
  let lastPosition: string | null = null;
  async function* lines(): AsyncGenerator<string> {
    let after: bigint | undefined;
    for (;;) {
      const page = await store.readAll({ after, maxCount: PAGE });
      if (page.length === 0) return;
      let text = '';
      for (const event of page) {
        const line: ExportedEvent = {
          position: String(event.position),
          stream: event.streamId,
          revision: event.revision,
          id: event.id,
          type: event.type,
          recordedAt: event.recordedAt,
          data: event.data,
          metadata: event.metadata,
        };
        text += `${JSON.stringify(line)}\n`;
      }
      count += page.length;
      after = page[page.length - 1].position;
      lastPosition = String(after);
      yield text;
    }
  }
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  await pipeline(lines, createGzip(), hashing, createWriteStream(path));
  return { count, lastPosition, sha256: hash.digest('hex') };
}

/**
 * Appends the export's events in order, a source append (same stream and recording time, following
 * revisions) at a time, each expecting the revision before its first: the target then holds every
 * stream at the export's revisions, or the import stops.
 */
async function importEvents(path: string, target: Target, batchLimitBytes: number): Promise<number> {
  let imported = 0;
  let batch: { stream: string; recordedAt: string; first: number; next: number; events: NewEvent[]; bytes: number } | undefined;
  const inFlight = new Set<Promise<unknown>>();
  let failure: unknown;
  const flush = async (): Promise<void> => {
    if (!batch) return;
    const { stream, first, events, recordedAt } = batch;
    batch = undefined;
    const expected: ExpectedRevision = first === 0 ? 'no_stream' : first - 1;
    const append = target.appendRecorded
      ? target.appendRecorded(stream, events, expected, recordedAt)
      : target.events.appendToStream(stream, events, expected);
    const appended = append.then(
      () => void (imported += events.length),
      (error: unknown) =>
        void (failure ??= new Error(`appending ${events.length} events at revision ${first} of ${stream}: ${messageOf(error)}`)),
    );
    if (!target.ordered) return appended;
    inFlight.add(appended);
    void appended.finally(() => inFlight.delete(appended));
    if (inFlight.size >= APPEND_WINDOW) await Promise.race(inFlight);
  };
  const lines = createInterface({ input: createReadStream(path).pipe(createGunzip()), crlfDelay: Infinity });
  let number = 0;
  for await (const text of lines) {
    number += 1;
    if (failure) break;
    if (text.trim() === '') continue;
    const event = parseLine(text, number);
    const fits =
      batch &&
      batch.stream === event.stream &&
      batch.recordedAt === event.recordedAt &&
      batch.next === event.revision &&
      batch.bytes + text.length <= batchLimitBytes * 0.9;
    if (!fits) await flush();
    batch ??= { stream: event.stream, recordedAt: event.recordedAt, first: event.revision, next: event.revision, events: [], bytes: 0 };
    // A target that stamps its own time (KurrentDB) keeps the source's in the metadata.
    const metadata = target.appendRecorded
      ? event.metadata
      : { ...event.metadata, [ORIGINAL_RECORDED_AT]: event.metadata[ORIGINAL_RECORDED_AT] ?? event.recordedAt };
    batch.events.push({ id: event.id, type: event.type, data: event.data, metadata });
    batch.next += 1;
    batch.bytes += text.length;
  }
  await flush();
  await Promise.all(inFlight);
  if (failure) throw failure;
  return imported;
}

function parseLine(text: string, number: number): ExportedEvent {
  let event: ExportedEvent;
  try {
    event = JSON.parse(text) as ExportedEvent;
  } catch (error) {
    throw new Error(`${EVENTS_FILE} line ${number} is not JSON: ${messageOf(error)}`);
  }
  const valid =
    typeof event === 'object' &&
    event !== null &&
    typeof event.stream === 'string' &&
    Number.isSafeInteger(event.revision) &&
    event.revision >= 0 &&
    typeof event.id === 'string' &&
    typeof event.type === 'string' &&
    typeof event.recordedAt === 'string' &&
    typeof event.metadata === 'object' &&
    event.metadata !== null;
  if (!valid)
    throw new Error(`${EVENTS_FILE} line ${number} is not an exported event (stream, revision, id, type, recordedAt, data, metadata)`);
  return event;
}

async function openSource(config: AppConfig): Promise<Source> {
  if (isEmbedded(config)) {
    const directory = join(config.dataDir, 'events');
    if (!existsSync(directory)) throw new Error(`no event log at ${directory}: set DATA_DIR to the service's data directory`);
    // Opened as the service does, lock included: the export reads a stopped instance.
    const events = LmdbEventStore.open(directory);
    const blobRoot = join(config.dataDir, 'blobs');
    return {
      mode: 'embedded',
      events,
      async *blobs() {
        for (const blob of blobsIn(blobRoot)) {
          const { bytes, path } = blob;
          yield { hash: blob.hash, size: blob.size, save: (to: string) => (bytes ? writeFile(to, bytes) : copyFile(path, to)) };
        }
      },
      close: () => events.close(),
    };
  }
  const { events, blobs, mongo, close } = await openDistributed(config);
  return {
    mode: 'distributed',
    events,
    async *blobs() {
      const files = mongo.collection<{ filename: string; length: number }>('blobs.files');
      for await (const file of files
        .find({ filename: { $regex: /^[0-9a-f]{64}$/ } }, { projection: { filename: 1, length: 1 } })
        .sort({ filename: 1 })) {
        yield {
          hash: file.filename,
          size: file.length,
          save: async (to: string) => pipeline(await blobs.get(file.filename), createWriteStream(to)),
        };
      }
    },
    close,
  };
}

async function openTarget(config: AppConfig): Promise<Target> {
  if (isEmbedded(config)) {
    const events = LmdbEventStore.open(join(config.dataDir, 'events'), { batchLimitBytes: config.eventBatchLimitBytes });
    // Bulk: alone on the directory; `flushToDisk` makes the blobs durable before the events land.
    const blobs = new FsBlobStore(join(config.dataDir, 'blobs'), { bulk: true });
    return {
      mode: 'embedded',
      events,
      appendRecorded: (stream, batch, expected, recordedAt) => events.appendToStream(stream, batch, expected, { recordedAt }),
      blobs,
      ordered: true,
      close: async () => {
        await blobs.close();
        await events.close();
      },
    };
  }
  const { events, blobs, mongo, close } = await openDistributed(config);
  return { mode: 'distributed', events, blobs, ordered: false, mongo, close };
}

async function openDistributed(config: AppConfig): Promise<{ events: EventStore; blobs: BlobStore; mongo: Db; close(): Promise<void> }> {
  if (!config.eventStoreUrl || !config.mongodbUrl)
    throw new Error('set both EVENTSTORE_URL and MONGODB_URL for distributed mode, or neither for embedded mode');
  // Loaded only here, as the service does: their clients take time to load and embedded mode never needs them.
  const { KurrentDbEventStore } = require('#event-store/kurrentdb/kurrentdb-event-store') as typeof KurrentDbAdapter;
  const { GridFsBlobStore } = require('#blob-store/gridfs/gridfs-blob-store') as typeof GridFsAdapter;
  const { openMongoDatabase } = require('#read-store/mongodb/mongo-connection') as typeof MongoConnection;
  const events = KurrentDbEventStore.connect(config.eventStoreUrl, { batchLimitBytes: config.eventBatchLimitBytes });
  const blobs = await GridFsBlobStore.connect(config.mongodbUrl);
  const { client, database } = await openMongoDatabase(
    config.mongodbUrl,
    {},
    { invalid: (message) => new Error(message), unavailable: (message) => new Error(message) },
    'MongoDB',
  );
  return {
    events,
    blobs,
    mongo: client.db(database),
    close: async () => {
      await blobs.close();
      await events.close();
      await client.close();
    },
  };
}

/** Why an embedded DATA_DIR cannot take an import, or undefined when it can. */
function embeddedTargetRefusal(dataDir: string): string | undefined {
  const full = ['readmodels', 'blobs'].filter((name) => existsSync(join(dataDir, name)) && readdirSync(join(dataDir, name)).length > 0);
  if (full.length === 0) return undefined;
  return `${resolve(dataDir)} already holds ${full.join(' and ')}: import into an empty DATA_DIR`;
}

/** Why the opened target cannot take an import (it holds events, blobs or read models), or undefined. */
async function targetRefusal(target: Target, config: AppConfig): Promise<string | undefined> {
  const head = await target.events.headPosition();
  if (head !== null) {
    return target.mode === 'embedded'
      ? `the event log in ${join(resolve(config.dataDir), 'events')} already holds events (head position ${head}): import into an empty DATA_DIR`
      : `KurrentDB at EVENTSTORE_URL already holds events (head position ${head}): import into an empty KurrentDB`;
  }
  if (target.mongo) {
    for (const { name } of await target.mongo.listCollections({}, { nameOnly: true }).toArray()) {
      if (name.startsWith('system.')) continue;
      if ((await target.mongo.collection(name).estimatedDocumentCount()) > 0) {
        return `the MongoDB database at MONGODB_URL already holds documents (collection ${name}): import into an empty database, the projector builds the read models there`;
      }
    }
  }
  return undefined;
}

function oneDirectory(args: string[], command: string, io: CliIo): string | number {
  const flags = args.filter((arg) => arg.startsWith('-'));
  const names = args.filter((arg) => !arg.startsWith('-'));
  if (flags.length > 0) return usageError(io, `unknown option '${flags[0]}' for ${command}`);
  if (names.length !== 1) return usageError(io, `${command} needs one directory`);
  return resolve(names[0]);
}
