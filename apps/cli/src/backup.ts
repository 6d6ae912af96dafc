import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  createReadStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { open as openLmdb } from 'lmdb';
import { FsBlobStore } from '#blob-store/fs/fs-blob-store';
import { DataDirectoryLockedError } from '#event-store/errors';
import { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';
import type { AppConfig } from '#platform/config';
import { blobsIn, type SnapshotBlob } from './blob-snapshot';
import { EXIT, messageOf, usageError, type CliIo } from './cli';
import { readManifest } from './manifest';

/**
 * `backup <dir>` and `restore <dir>` for the embedded stores.
 *
 * The backup runs beside a live service without its lock: the event log is copied with LMDB's own
 * hot copy (`mdb_env_copy2` through lmdb-js `backup`) from an environment opened read-only. LMDB
 * supports readers in other processes: the copy runs in one read transaction, a snapshot of whole
 * committed transactions, while the service keeps writing. Blobs are copied after the log, so every
 * blob that an event of the copy names was stored before the copy began (the service stores a blob
 * before the event naming it), and each is checked against its hash on the way. Read models are
 * not copied: they are derived, and a copy taken beside the log could hold a checkpoint past it;
 * the first start on a restored directory builds them from the log.
 */

export const BACKUP_MANIFEST = 'backup.json';
export const BACKUP_FORMAT = 'docs-platform-backup';
export const BACKUP_VERSION = 1;
const LOG_FILE = 'data.mdb';
/** Puts in flight while copying blobs: the small ones of one turn share a pack write. */
const BLOB_WINDOW = 256;
/** Files of DATA_DIR itself worth keeping: the generated admin token. */
const TOP_FILES = ['admin-token'];

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  version: number;
  /** When the copy of the log began and when the backup ended (ISO 8601). */
  startedAt: string;
  finishedAt: string;
  source: string;
  log: { position: string | null; events: number; file: string; bytes: number; sha256: string };
  blobs: { count: number; bytes: number };
  readModels: 'rebuilt at the first start';
  files: string[];
}

/** `backup <dir>`: a consistent copy of the embedded stores, the service running or not. */
export async function backup(args: string[], io: CliIo, config: AppConfig): Promise<number> {
  const names = args.filter((arg) => !arg.startsWith('-'));
  const flags = args.filter((arg) => arg.startsWith('-'));
  if (flags.length > 0) return usageError(io, `unknown option '${flags[0]}' for backup`);
  if (names.length !== 1) return usageError(io, 'backup needs one target directory, empty or absent');
  if (config.eventStoreUrl || config.mongodbUrl) {
    io.stderr.write(
      'backup copies the embedded stores (DATA_DIR). In distributed mode back up KurrentDB and MongoDB with their own tools, ' +
        'or write a portable copy with `export <dir>`.\n',
    );
    return EXIT.config;
  }
  const target = resolve(names[0]);
  const sourceLog = join(config.dataDir, 'events');
  if (!existsSync(join(sourceLog, LOG_FILE))) {
    io.stderr.write(`no event log at ${sourceLog}: set DATA_DIR to the service's data directory\n`);
    return EXIT.failed;
  }
  if (existsSync(target) && readdirSync(target).length > 0) {
    io.stderr.write(`${target} is not empty: back up into a new or empty directory\n`);
    return EXIT.failed;
  }
  try {
    const startedAt = new Date().toISOString();
    io.stdout.write(`Backing up ${resolve(config.dataDir)} into ${target}.\n`);
    mkdirSync(join(target, 'events'), { recursive: true });
    await copyLog(sourceLog, join(target, 'events'));
    const log = await describeLog(join(target, 'events'));
    io.stdout.write(`Event log copied: ${log.events} events, up to position ${log.position ?? '(empty)'}.\n`);
    const blobs = await copyBlobs(join(config.dataDir, 'blobs'), join(target, 'blobs'));
    io.stdout.write(`Blobs copied: ${blobs.count} (${blobs.bytes} bytes).\n`);
    const files = TOP_FILES.filter((name) => existsSync(join(config.dataDir, name)));
    for (const name of files) copyFileSync(join(config.dataDir, name), join(target, name));
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      startedAt,
      finishedAt: new Date().toISOString(),
      source: resolve(config.dataDir),
      log: { ...log, file: `events/${LOG_FILE}`, ...(await fileDigest(join(target, 'events', LOG_FILE))) },
      blobs,
      readModels: 'rebuilt at the first start',
      files,
    };
    // Written last, through a rename: a directory with a manifest holds a whole backup.
    writeFileSync(join(target, `${BACKUP_MANIFEST}.tmp`), `${JSON.stringify(manifest, null, 2)}\n`);
    renameSync(join(target, `${BACKUP_MANIFEST}.tmp`), join(target, BACKUP_MANIFEST));
    syncDisks();
    io.stdout.write(
      `Backup complete: ${join(target, BACKUP_MANIFEST)}. Read models are not copied: the first start after a restore builds them.\n`,
    );
    return EXIT.ok;
  } catch (error) {
    io.stderr.write(`backup failed: ${messageOf(error)}\n`);
    return EXIT.failed;
  }
}

/** `restore <dir> [--force]`: puts a backup in place in a stopped, empty DATA_DIR. */
export async function restore(args: string[], io: CliIo, config: AppConfig): Promise<number> {
  const names = args.filter((arg) => !arg.startsWith('-'));
  const flags = args.filter((arg) => arg.startsWith('-'));
  const unknown = flags.filter((flag) => flag !== '--force');
  if (unknown.length > 0) return usageError(io, `unknown option '${unknown[0]}' for restore`);
  if (names.length !== 1) return usageError(io, 'restore needs one backup directory');
  if (config.eventStoreUrl || config.mongodbUrl) {
    io.stderr.write(
      'restore fills the embedded stores (DATA_DIR): unset EVENTSTORE_URL and MONGODB_URL. To load a log into KurrentDB, use `import`.\n',
    );
    return EXIT.config;
  }
  const source = resolve(names[0]);
  const force = flags.includes('--force');
  const dataDir = resolve(config.dataDir);
  let manifest: BackupManifest;
  try {
    manifest = await checkBackup(source);
  } catch (error) {
    io.stderr.write(`${messageOf(error)}\n`);
    return EXIT.failed;
  }
  const held = await heldByService(dataDir);
  if (held) {
    io.stderr.write(`${held}\n\nThe embedded service locks its data directory while it runs: stop it, then restore again.\n`);
    return EXIT.locked;
  }
  const present = existsSync(dataDir) ? readdirSync(dataDir) : [];
  let setAside: string | undefined;
  if (present.length > 0) {
    if (!force) {
      io.stderr.write(
        `${dataDir} is not empty (${present.slice(0, 5).join(', ')}${present.length > 5 ? ', …' : ''}): restore into an empty DATA_DIR, or pass --force to move its contents aside first\n`,
      );
      return EXIT.failed;
    }
    setAside = `${dataDir}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    mkdirSync(setAside);
    for (const name of present) renameSync(join(dataDir, name), join(setAside, name));
    io.stdout.write(`Moved what ${dataDir} held to ${setAside}.\n`);
  }
  try {
    mkdirSync(join(dataDir, 'events'), { recursive: true });
    copyFileSync(join(source, manifest.log.file), join(dataDir, 'events', LOG_FILE));
    if (existsSync(join(source, 'blobs'))) {
      cpSync(join(source, 'blobs'), join(dataDir, 'blobs'), { recursive: true, filter: (path) => !isLockFile(path) });
    }
    for (const name of manifest.files) copyFileSync(join(source, name), join(dataDir, name));
    const log = await describeLog(join(dataDir, 'events'));
    if (log.position !== manifest.log.position || log.events !== manifest.log.events) {
      throw new Error(
        `the restored log ends at position ${log.position} with ${log.events} events; the manifest says ${manifest.log.position} and ${manifest.log.events}`,
      );
    }
    const blobs = await countBlobs(join(dataDir, 'blobs'));
    if (blobs !== manifest.blobs.count)
      throw new Error(`the restored blob store holds ${blobs} intact blobs; the manifest says ${manifest.blobs.count}`);
    syncDisks();
    io.stdout.write(
      `Restored the backup of ${manifest.startedAt} into ${dataDir}: ${log.events} events up to position ${log.position ?? '(empty)'}, ${blobs} blobs, all checked.\n` +
        `Start the service on it: its first start builds the read models from the log before it answers reads.\n`,
    );
    return EXIT.ok;
  } catch (error) {
    io.stderr.write(`restore failed: ${messageOf(error)}${setAside ? `\nThe previous contents are in ${setAside}.` : ''}\n`);
    return EXIT.failed;
  }
}

/** The backup's manifest once its log file matches it; an error saying what is wrong otherwise. */
export async function checkBackup(directory: string): Promise<BackupManifest> {
  const path = join(directory, BACKUP_MANIFEST);
  const manifest = readManifest<BackupManifest>(directory, BACKUP_MANIFEST, 'backup', BACKUP_FORMAT, BACKUP_VERSION);
  if (
    manifest.log?.file !== `events/${LOG_FILE}` ||
    !Array.isArray(manifest.files) ||
    manifest.files.some((name) => !TOP_FILES.includes(name))
  ) {
    throw new Error(`${path} names files this version does not restore`);
  }
  const log = join(directory, manifest.log.file);
  if (!existsSync(log)) throw new Error(`the backup lacks its event log ${log}`);
  const digest = await fileDigest(log);
  if (digest.sha256 !== manifest.log.sha256 || digest.bytes !== manifest.log.bytes)
    throw new Error(`${log} does not match the manifest (damaged or changed since the backup)`);
  return manifest;
}

/** The hot copy: a read-only environment, no service lock taken, one read transaction. */
async function copyLog(from: string, to: string): Promise<void> {
  const root = openLmdb({ path: from, readOnly: true });
  try {
    // Compacted: free pages are left out and the copy is smaller; it is the same snapshot either way.
    await root.backup(to, true);
  } finally {
    await root.close();
  }
}

/** Head position and event count of a log directory (positions run 1, 2, 3…, so the head counts them). */
async function describeLog(directory: string): Promise<{ position: string | null; events: number }> {
  const store = LmdbEventStore.open(directory);
  try {
    const head = await store.headPosition();
    return { position: head === null ? null : String(head), events: head === null ? 0 : Number(head) };
  } finally {
    await store.close();
  }
}

async function copyBlobs(from: string, to: string): Promise<{ count: number; bytes: number }> {
  const store = new FsBlobStore(to, { bulk: true });
  let count = 0;
  let bytes = 0;
  const inFlight = new Set<Promise<void>>();
  try {
    for (const blob of blobsIn(from)) {
      const copied = copyBlob(store, blob).then((stored) => {
        if (!stored) return;
        count += 1;
        bytes += blob.size;
      });
      inFlight.add(copied);
      void copied.finally(() => inFlight.delete(copied)).catch(() => undefined);
      if (inFlight.size >= BLOB_WINDOW) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    await store.flushToDisk();
  } finally {
    await store.close();
  }
  return { count, bytes };
}

/** False when a file blob no longer matches its name (it changed on disk): left out. */
async function copyBlob(store: FsBlobStore, blob: SnapshotBlob): Promise<boolean> {
  if (blob.bytes) {
    await store.put(blob.bytes);
    return true;
  }
  try {
    const info = await store.put(createReadStream(blob.path));
    if (info.hash === blob.hash) return true;
    await store.delete(info.hash);
    return false;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false; // purged meanwhile
    throw error;
  }
}

/** The lock message when a process holds `dataDir`, else undefined. */
export async function heldByService(dataDir: string): Promise<string | undefined> {
  const directory = join(dataDir, 'events');
  if (!existsSync(join(directory, LOG_FILE))) return undefined;
  try {
    await LmdbEventStore.open(directory).close();
    return undefined;
  } catch (error) {
    if (error instanceof DataDirectoryLockedError || (error as Error)?.name === 'DataDirectoryLockedError') return (error as Error).message;
    throw error;
  }
}

export async function fileDigest(path: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return { bytes: statSync(path).size, sha256: hash.digest('hex') };
}

/** The intact blobs of a blob directory, each read and checked against its hash. */
export async function countBlobs(rootDir: string): Promise<number> {
  let count = 0;
  for (const blob of blobsIn(rootDir)) {
    if (blob.path === undefined || (await fileDigest(blob.path)).sha256 === blob.hash) count += 1;
  }
  return count;
}

function isLockFile(path: string): boolean {
  const name = basename(path);
  return name === 'lock.mdb' || name.endsWith('-lock') || name === 'process.lock' || basename(dirname(path)) === 'tmp';
}

/** Flushes what was written (one `sync` rather than an fsync per file). */
function syncDisks(): void {
  try {
    execFileSync('sync', { stdio: 'ignore' });
  } catch {
    // No `sync` (Windows): the files are written; the system flushes them soon.
  }
}
