import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DataDirectoryLockedError, EventStoreInputError } from '#event-store/errors';
import type { EventStore, RecordedEvent } from '#event-store/event-store.port';
import { KurrentDbEventStore } from '#event-store/kurrentdb/kurrentdb-event-store';
import { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';
import { ConfigError, loadConfig, type AppConfig } from '#platform/config';
import type { Projection } from '#read-store/projections/projection';
import { ProjectionRunner } from '#read-store/projections/projection-runner';
import { rebuildProgressReporter } from '#read-store/projections/rebuild-progress';
import { service } from '#composition/contexts';
import { projectionBuild } from '#runtime/build-digest';
import { openStores, replayMemoryGuards, type Stores } from '#runtime/stores';
import { presentEvent, streamEvents } from '#audit';
import { FsBlobStore } from '#blob-store/fs/fs-blob-store';
import { DEFAULT_SEED, seed, writeSeedManifest, type SeedOptions } from './seed';
import { defaultSeedWorkers, SeedContentWorkers } from './seed-content';
import { backup, restore } from './backup';
import { exportCommand, importCommand } from './export-import';
import { salvageLog, verify } from './verify';

/** Where the CLI writes: process.stdout/stderr, or a test's buffers. */
export interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface CliIo {
  stdout: Output;
  stderr: Output;
}

/** What the commands open; tests and other entry points may substitute them. */
export interface CliDependencies {
  openStores?: (config: AppConfig, options?: { bulk?: boolean }) => Promise<Stores>;
  openEventStore?: (config: AppConfig) => EventStore;
  projections?: readonly Projection[];
}

/** Exit codes (sysexits.h where one fits). */
export const EXIT = {
  ok: 0,
  /** The command failed, or the stream does not exist. */
  failed: 1,
  /** The embedded data directory is held by a running service. */
  locked: 2,
  usage: 64,
  config: 78,
} as const;

export const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
  rebuild                         Replay the whole event log into fresh read models, with progress,
                                  then print the events applied, the time taken and the documents
                                  per collection.
  seed [options]                  Write a realistic mix of events into an empty embedded log (DATA_DIR,
                                  the service stopped): users, organizations and members, teams,
                                  collections, spaces, pages with content revisions (bodies in the
                                  blob store), change requests, comments, sites, an integration,
                                  then renames and other updates up to the total. Writes
                                  DATA_DIR/seed.json (ids and the organization admins' tokens).
      --events N                  total events (default 1000000)
      --organizations N           organizations (default 100)
      --members N                 members per organization, each a user (default 20)
      --spaces N                  spaces over all organizations (default 5000)
      --pages N                   pages over all spaces, at least one per space (default 100000)
      --append                    write even though the log already holds events
      --workers N                 threads that build the pages' content (default: one per core, 4 at most)
  history <streamName> [--json]   Print a stream's events, oldest first, one per line:
                                  revision position recordedAt type actor data
                                  (--json: one JSON object per line).
  backup <dir>                    Copy the embedded stores (DATA_DIR) into a new directory, consistently,
                                  while the service runs or not; writes <dir>/backup.json.
  restore <dir> [--force]         Put a backup in place in DATA_DIR (the service stopped, the directory
                                  empty; --force moves what it holds aside first); the next start
                                  builds the read models.
  export <dir>                    Write the event log (events.ndjson.gz) and the blobs (blobs/<hash>)
                                  of a stopped embedded instance or of the distributed stores.
  import <dir>                    Load an export into an empty embedded DATA_DIR, or into empty
                                  KurrentDB and MongoDB (EVENTSTORE_URL, MONGODB_URL).
  verify                          Check a stopped embedded data directory: the log decodes end to end, the
                                  read models equal a fresh rebuild, every blob of every revision exists
                                  and matches its hash. Prints each problem; exit 0 all well, 1 otherwise.
  salvage-log <dir>               Copy every event of a damaged embedded log up to the last intact one into
                                  a fresh log in <dir> (the service stopped), and say what to do next.
  help, --help                    Show this help.

Configuration comes from the environment, as for the service: DATA_DIR (default ./data) in
embedded mode; EVENTSTORE_URL and MONGODB_URL in distributed mode.

Exit codes: 0 done, 1 failed or no such stream, 2 data directory in use by a running service,
64 bad usage, 78 bad configuration.
`;

type Command = (args: string[], io: CliIo, config: AppConfig, dependencies?: CliDependencies) => Promise<number>;

/** Parses the command line, loads the configuration from `env`, runs the command; resolves to the exit code. */
export async function runCli(
  args: readonly string[],
  io: CliIo,
  env: NodeJS.ProcessEnv = process.env,
  dependencies: CliDependencies = {},
): Promise<number> {
  const [command, ...rest] = args;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    io.stdout.write(USAGE);
    return EXIT.ok;
  }
  const run = COMMANDS[command];
  if (!run) {
    io.stderr.write(`unknown command '${command}'\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(USAGE);
    return EXIT.ok;
  }
  let config: AppConfig;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr.write(`configuration error: ${error.message}\n`);
    return EXIT.config;
  }
  return run(rest, io, config, dependencies);
}

/**
 * `rebuild`: replays the whole log into fresh read models through the same projections the
 * service runs.
 */
export async function rebuild(args: string[], io: CliIo, config: AppConfig, dependencies: CliDependencies = {}): Promise<number> {
  if (args.length > 0) return usageError(io, `rebuild takes no arguments, got '${args.join(' ')}'`);
  const embedded = isEmbedded(config);
  if (embedded && !hasEmbeddedLog(config, io)) return EXIT.failed;
  let stores: Stores;
  try {
    // Alone on the data directory (the service is stopped): blobs are read synchronously. Projections
    // only read blobs (`ProjectionResources`), so no put is left waiting for `flushToDisk`.
    stores = await (dependencies.openStores ?? openStores)(config, { bulk: true });
  } catch (error) {
    return openFailed(error, io, 'Stop it (Ctrl-C in its terminal, or SIGTERM its process), then run the rebuild again.');
  }
  try {
    if (stores.mode === 'embedded') {
      io.stdout.write(
        `Embedded mode: the service keeps its read models and checkpoints in ${join(config.dataDir, 'readmodels')} and resumes\n` +
          `from the checkpoint at every start. This run replays the whole log in ${join(config.dataDir, 'events')} into fresh\n` +
          `read models there (the service must be stopped; it holds the data directory while it runs).\n\n`,
      );
    } else {
      io.stdout.write(
        `Distributed mode: rebuilding the MongoDB read models from KurrentDB. Stop the projector first (it would keep\n` +
          `applying events while the collections are dropped and refilled) and start it again afterwards: it continues from\n` +
          `the rebuilt checkpoint. Stop the integrations workers too: an event delivered before would read as pending again\n` +
          `and be delivered twice. Until the rebuild ends, API reads see incomplete read models.\n\n`,
      );
    }
    const projections = dependencies.projections ?? service().projections;
    // The service's own fingerprint (the code's digest in embedded mode): its next start resumes from this rebuild.
    const runner = new ProjectionRunner(stores.events, stores.reads, projections, {
      resources: { blobs: stores.blobs },
      // Alone on the data directory (the service is stopped) for the whole rebuild.
      replayMemory: replayMemoryGuards(config, stores, () => true),
      ...projectionBuild(stores.mode),
    });
    const progress = rebuildProgressReporter(io.stderr);
    const started = performance.now();
    const { applied } = await runner.rebuild((p) => progress.update(p));
    const seconds = (performance.now() - started) / 1000;
    progress.finish(applied, seconds);
    const collections = [...new Set(projections.flatMap((p) => p.collections))].sort();
    const counts: Array<[string, number]> = [];
    for (const name of collections) counts.push([name, await stores.reads.collection(name).count()]);
    const width = Math.max(0, ...collections.map((name) => name.length));
    io.stdout.write(`Replayed ${applied} ${applied === 1 ? 'event' : 'events'} in ${seconds.toFixed(1)} s.\n`);
    io.stdout.write(`Documents per collection:\n${counts.map(([name, count]) => `  ${name.padEnd(width)}  ${count}\n`).join('')}`);
    if (stores.mode === 'embedded') io.stdout.write(`\nThe whole log replays without error.\n`);
    return EXIT.ok;
  } catch (error) {
    io.stderr.write(`\nrebuild failed: ${messageOf(error)}\n`);
    return EXIT.failed;
  } finally {
    await stores.close();
  }
}

/** `seed [--events N] [--organizations N] [--members N] [--spaces N] [--pages N] [--append]`. */
export async function seedCommand(args: string[], io: CliIo, config: AppConfig): Promise<number> {
  const parsed = parseSeedOptions(args);
  if (typeof parsed === 'string') return usageError(io, parsed);
  if (!isEmbedded(config)) {
    io.stderr.write(
      'seed writes the embedded stores only: unset EVENTSTORE_URL and MONGODB_URL and point DATA_DIR at the data directory to fill\n',
    );
    return EXIT.config;
  }
  let events: LmdbEventStore;
  try {
    events = LmdbEventStore.open(join(config.dataDir, 'events'), { batchLimitBytes: config.eventBatchLimitBytes });
  } catch (error) {
    return openFailed(error, io, 'Stop it, then run the seed again.');
  }
  const blobs = new FsBlobStore(join(config.dataDir, 'blobs'), { bulk: true });
  let content: SeedContentWorkers | undefined;
  try {
    const head = await events.headPosition();
    if (head !== null && !parsed.append) {
      io.stderr.write(
        `the event log in ${join(config.dataDir, 'events')} already holds events (head position ${head}): seed an empty DATA_DIR, or pass --append to add to it\n`,
      );
      return EXIT.failed;
    }
    const { options } = parsed;
    io.stdout.write(
      `Seeding ${join(config.dataDir, 'events')}: ${options.events} events, ${options.organizations} organizations of ${options.members} members, ` +
        `${options.spaces} spaces, ${options.pages} pages.\n`,
    );
    const started = performance.now();
    let lastTenth = -1;
    content = SeedContentWorkers.start(blobs.rootDir, parsed.workers);
    const manifest = await seed(options, { events, content }, config, (decided, total) => {
      const tenth = Math.min(10, Math.floor((decided / total) * 10));
      if (tenth === lastTenth) return;
      lastTenth = tenth;
      const seconds = (performance.now() - started) / 1000;
      io.stderr.write(`seeding: ${tenth * 10}% (${decided} events, ${Math.round(decided / Math.max(seconds, 0.001))} events/s)\n`);
    });
    await content.flush();
    await blobs.flushToDisk();
    const seconds = (performance.now() - started) / 1000;
    const path = writeSeedManifest(config.dataDir, manifest);
    io.stdout.write(`Seeded ${manifest.events} events in ${seconds.toFixed(1)} s (${Math.round(manifest.events / seconds)} events/s).\n`);
    io.stdout.write(`Ids and each organization admin's token: ${path}\n`);
    return EXIT.ok;
  } catch (error) {
    io.stderr.write(`\nseed failed: ${messageOf(error)}\n`);
    return EXIT.failed;
  } finally {
    await content?.close();
    await blobs.close();
    await events.close();
  }
}

const SEED_FLAGS: Readonly<Record<string, keyof SeedOptions>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, keyof SeedOptions>, {
    '--events': 'events',
    '--organizations': 'organizations',
    '--members': 'members',
    '--spaces': 'spaces',
    '--pages': 'pages',
  }),
);

/** The seed's options, or what is wrong with them. */
export function parseSeedOptions(args: readonly string[]): { options: SeedOptions; append: boolean; workers: number } | string {
  const options: SeedOptions = { ...DEFAULT_SEED };
  let append = false;
  let workers = defaultSeedWorkers();
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index];
    if (arg === '--append') {
      append = true;
      continue;
    }
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const key = flag === '--workers' ? 'workers' : SEED_FLAGS[flag];
    if (!key) return `unknown option '${arg}' for seed`;
    const text = inline ?? args[++index];
    if (text === undefined) return `${flag} needs a number`;
    const most = key === 'workers' ? MOST_SEED_WORKERS : 100_000_000;
    if (!/^[0-9][0-9_]*$/.test(text) || Number(text.replace(/_/g, '')) > most)
      return `${flag} must be a whole number from 1 to ${most}, got '${text}'`;
    const value = Number(text.replace(/_/g, ''));
    if (value < 1) return `${flag} must be at least 1`;
    if (key === 'workers') workers = value;
    else options[key] = value;
  }
  if (options.spaces < options.organizations)
    return `--spaces (${options.spaces}) must be at least --organizations (${options.organizations}): every organization gets a space`;
  if (options.pages < options.spaces)
    return `--pages (${options.pages}) must be at least --spaces (${options.spaces}): every space gets a page`;
  return { options, append, workers };
}

/** More content workers than this only wait on one another's disk writes. */
const MOST_SEED_WORKERS = 64;

/** `history <streamName> [--json]`: a stream's events, oldest first. */
export async function history(args: string[], io: CliIo, config: AppConfig, dependencies: CliDependencies = {}): Promise<number> {
  const flags = args.filter((arg) => arg.startsWith('-'));
  const names = args.filter((arg) => !arg.startsWith('-'));
  const unknown = flags.filter((flag) => flag !== '--json');
  if (unknown.length > 0) return usageError(io, `unknown option '${unknown[0]}' for history`);
  if (names.length !== 1)
    return usageError(
      io,
      names.length === 0 ? 'history needs a stream name, such as space-<id>' : `history takes one stream name, got ${names.length}`,
    );
  const [stream] = names;
  const json = flags.includes('--json');
  if (isEmbedded(config) && !hasEmbeddedLog(config, io)) return EXIT.failed;
  let store: EventStore;
  try {
    store = (dependencies.openEventStore ?? openEventStore)(config);
  } catch (error) {
    return openFailed(error, io, `Stop it first, or read the stream through it: GET /v1/admin/streams/${stream} with the admin token.`);
  }
  try {
    if ((await store.streamRevision(stream)) === null) {
      io.stderr.write(`no stream '${stream}'\n`);
      return EXIT.failed;
    }
    for await (const event of streamEvents(store, stream))
      io.stdout.write(`${json ? JSON.stringify(presentEvent(event)) : historyLine(event)}\n`);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof EventStoreInputError) return usageError(io, error.message);
    io.stderr.write(`history failed: ${messageOf(error)}\n`);
    return EXIT.failed;
  } finally {
    await store.close();
  }
}

const COMMANDS: Readonly<Record<string, Command>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, Command>, {
    rebuild,
    seed: seedCommand,
    history,
    // Called through: these modules import the exit codes from this one.
    backup: (args: string[], io: CliIo, config: AppConfig) => backup(args, io, config),
    restore: (args: string[], io: CliIo, config: AppConfig) => restore(args, io, config),
    export: (args: string[], io: CliIo, config: AppConfig) => exportCommand(args, io, config),
    import: (args: string[], io: CliIo, config: AppConfig) => importCommand(args, io, config),
    verify: (args: string[], io: CliIo, config: AppConfig, dependencies?: CliDependencies) => verify(args, io, config, dependencies),
    'salvage-log': (args: string[], io: CliIo, config: AppConfig) => salvageLog(args, io, config),
  }),
);

/** `revision position recordedAt type actor.label data`, on one line whatever the values hold. */
export function historyLine(event: RecordedEvent): string {
  const actor = event.metadata.actor as { label?: unknown } | undefined;
  const label = typeof actor?.label === 'string' && actor.label.trim() ? actor.label.replace(/\s+/g, ' ').trim() : '-';
  return `${event.revision} ${event.position} ${event.recordedAt} ${event.type} ${label} ${JSON.stringify(event.data) ?? 'null'}`;
}

export function isEmbedded(config: AppConfig): boolean {
  return !config.eventStoreUrl && !config.mongodbUrl;
}

/** In embedded mode the log must exist: opening a missing one would create an empty store in a mistyped DATA_DIR. */
function hasEmbeddedLog(config: AppConfig, io: CliIo): boolean {
  const directory = join(config.dataDir, 'events');
  if (existsSync(directory)) return true;
  io.stderr.write(`no event log at ${directory}: set DATA_DIR to the service's data directory\n`);
  return false;
}

function openEventStore(config: AppConfig): EventStore {
  return config.eventStoreUrl ? KurrentDbEventStore.connect(config.eventStoreUrl) : LmdbEventStore.open(join(config.dataDir, 'events'));
}

export function openFailed(error: unknown, io: CliIo, hint: string): number {
  if (error instanceof DataDirectoryLockedError || (error as Error)?.name === 'DataDirectoryLockedError') {
    io.stderr.write(`${(error as Error).message}\n\nThe embedded service locks its data directory while it runs. ${hint}\n`);
    return EXIT.locked;
  }
  io.stderr.write(`could not open the stores: ${messageOf(error)}\n`);
  return EXIT.failed;
}

export function usageError(io: CliIo, message: string): number {
  io.stderr.write(`${message}\n\n${USAGE}`);
  return EXIT.usage;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
