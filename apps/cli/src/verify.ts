import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobDamagedError, BlobNotFoundError } from '#blob-store/blob-store.port';
import { FsBlobStore } from '#blob-store/fs/fs-blob-store';
import { CONTENT_REVISIONS } from '#content';
import { service } from '#composition/contexts';
import { DamagedEventLogError, DataDirectoryLockedError } from '#event-store/errors';
import { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';
import { salvageEventLog } from '#event-store/lmdb/lmdb-salvage';
import type { AppConfig } from '#platform/config';
import { checkLmdbEnvironment } from '#platform/lmdb-file-check';
import { MemoryReadStore } from '#read-store/memory/memory-read-store';
import { readModelFileProblem } from '#read-store/memory/read-model-integrity';
import { CHECKPOINTS, ProjectionRunner } from '#read-store/projections/projection-runner';
import type { Doc, ReadStore } from '#read-store/read-store.port';
import { projectionBuild } from '#runtime/build-digest';
import { messageOf, type CliDependencies, type CliIo } from './cli';

/** Exit codes of these commands (the CLI's: 0 done, 1 failed, 2 data directory in use, 64 bad usage). */
const OK = 0;
const FAILED = 1;
const LOCKED = 2;
const USAGE = 64;
/** Differences named per collection, at most. */
const SHOWN = 5;
const PAGE = 1000;

/**
 * `verify`: checks a stopped embedded data directory, changing nothing in it. The event log decodes
 * from its first event to its last; the read models pass their file check and equal a fresh
 * rebuild from the log (made in a temporary store, compared collection by collection); every blob of
 * every revision's tree (pages, bodies, files) exists and matches its hash. Prints each problem
 * found; exit 0 when there is none, 1 otherwise.
 */
export async function verify(args: string[], io: CliIo, config: AppConfig, dependencies: CliDependencies = {}): Promise<number> {
  if (args.length > 0) return usage(io, `verify takes no arguments, got '${args.join(' ')}'`);
  if (config.eventStoreUrl || config.mongodbUrl)
    return usage(io, 'verify checks an embedded data directory (DATA_DIR); unset EVENTSTORE_URL and MONGODB_URL');
  const eventsDir = join(config.dataDir, 'events');
  if (!existsSync(eventsDir)) {
    io.stderr.write(`no event log at ${eventsDir}: set DATA_DIR to the service's data directory\n`);
    return FAILED;
  }
  const problems: string[] = [];
  const say = (text: string) => io.stdout.write(`${text}\n`);
  const problem = (text: string) => {
    problems.push(text);
    io.stdout.write(`  PROBLEM: ${text}\n`);
  };

  say(`Event log (${eventsDir})`);
  const file = checkLmdbEnvironment(eventsDir);
  if (file.problem) {
    problem(`${file.file}: ${file.problem}; salvage it with \`npm run cli -- salvage-log <new-directory>\``);
    return finish(io, problems);
  }
  let events: LmdbEventStore;
  try {
    events = LmdbEventStore.open(eventsDir);
  } catch (error) {
    if (error instanceof DataDirectoryLockedError) {
      io.stderr.write(`${error.message}\n\nverify reads a stopped data directory: stop the service, then run it again.\n`);
      return LOCKED;
    }
    problem(error instanceof DamagedEventLogError ? error.message : `the log does not open: ${messageOf(error)}`);
    return finish(io, problems);
  }
  const blobs = new FsBlobStore(join(config.dataDir, 'blobs'));
  const scratch = mkdtempSync(join(tmpdir(), 'verify-readmodels-'));
  try {
    const count = await decodeWholeLog(events, problem);
    if (count === undefined) return finish(io, problems);
    say(`  ${count} events decode, in order`);

    say(`Read models (${join(config.dataDir, 'readmodels')})`);
    const projections = dependencies.projections ?? service().projections;
    const rebuilt = MemoryReadStore.open(join(scratch, 'readmodels'));
    try {
      const runner = new ProjectionRunner(events, rebuilt, projections, { resources: { blobs }, ...projectionBuild('embedded') });
      const { applied } = await runner.rebuild();
      say(`  rebuilt from the log into a temporary store (${applied} events)`);
      const collections = [...new Set(projections.flatMap((p) => p.collections))].sort();
      await compareReadModels(join(config.dataDir, 'readmodels'), rebuilt, collections, count, say, problem);

      say(`Blobs (${join(config.dataDir, 'blobs')})`);
      const checked = await checkRevisionBlobs(rebuilt, blobs, problem);
      say(`  ${checked.revisions} revisions, ${checked.blobs} blobs of their trees checked against their hashes`);
    } finally {
      await rebuilt.close();
    }
  } finally {
    await blobs.close();
    await events.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  return finish(io, problems);
}

/**
 * `salvage-log <target-dir>`: copies the intact prefix of the data directory's event log (every
 * event up to the last one before the first missing or undecodable one) into a fresh log in
 * `target-dir`, and says what to do next. The damaged log is only read.
 */
export async function salvageLog(args: string[], io: CliIo, config: AppConfig): Promise<number> {
  if (args.length !== 1 || args[0].startsWith('-'))
    return usage(io, 'salvage-log takes one argument: the directory to write the salvaged log to');
  if (config.eventStoreUrl || config.mongodbUrl)
    return usage(io, 'salvage-log works on an embedded data directory (DATA_DIR); unset EVENTSTORE_URL and MONGODB_URL');
  const source = join(config.dataDir, 'events');
  const target = args[0];
  try {
    const result = await salvageEventLog(source, target);
    const out = (text: string) => io.stdout.write(`${text}\n`);
    if (result.problem) out(`The log in ${source} is damaged: ${result.problem}.`);
    out(`Kept ${result.kept} ${result.kept === 1 ? 'event' : 'events'} (positions 1 to ${result.kept}) in ${target}.`);
    if (result.firstMissing !== undefined) {
      out(`Position ${result.firstMissing} is missing or does not decode: the copy stops before it.`);
      if (result.highestFound > result.kept)
        out(
          `${result.found - result.kept} intact events past that gap (up to position ${result.highestFound}) are not copied: a log has no gaps.`,
        );
    } else {
      out('No event was lost.');
    }
    out(
      `\nNext, with the service stopped:\n` +
        `  1. keep the damaged log aside:      mv ${source} ${source}.damaged\n` +
        `  2. put the salvaged one in place:   mv ${target} ${source}\n` +
        `  3. drop the read models, which may name events the salvaged log no longer has:\n` +
        `                                      mv ${join(config.dataDir, 'readmodels')} ${join(config.dataDir, 'readmodels')}.old\n` +
        `  4. start the service: it rebuilds the read models from the log. \`npm run cli -- verify\` checks the result.\n`,
    );
    return OK;
  } catch (error) {
    if (error instanceof DataDirectoryLockedError) {
      io.stderr.write(`${error.message}\n\nStop the service, then run salvage-log again.\n`);
      return LOCKED;
    }
    io.stderr.write(`salvage-log failed: ${messageOf(error)}\n`);
    return FAILED;
  }
}

/** Reads the whole log in pages; the number of events, or undefined (a problem said) where it stops decoding. */
async function decodeWholeLog(events: LmdbEventStore, problem: (text: string) => void): Promise<number | undefined> {
  let count = 0;
  let after: bigint | undefined;
  for (;;) {
    let page;
    try {
      page = await events.readAll({ after, maxCount: PAGE });
    } catch (error) {
      problem(`the log does not decode after position ${after ?? 0n}: ${messageOf(error)}`);
      return undefined;
    }
    if (page.length === 0) return count;
    for (const event of page) {
      count += 1;
      if (event.position !== BigInt(count)) {
        problem(`the log has a gap: position ${event.position} follows ${count - 1}`);
        return undefined;
      }
    }
    after = page[page.length - 1].position;
  }
}

async function compareReadModels(
  directory: string,
  rebuilt: ReadStore,
  collections: string[],
  head: number,
  say: (text: string) => void,
  problem: (text: string) => void,
): Promise<void> {
  if (!existsSync(join(directory, 'data.mdb'))) {
    say('  none stored (the next start builds them)');
    return;
  }
  const damaged = readModelFileProblem(directory);
  if (damaged) {
    problem(`read models damaged: ${damaged} (the next start moves them aside and rebuilds them)`);
    return;
  }
  const stored = MemoryReadStore.open(directory);
  try {
    const checkpoint = await stored.collection(CHECKPOINTS).get('main');
    const position = typeof checkpoint?.position === 'string' ? Number(checkpoint.position) : 0;
    if (position !== head) {
      say(
        `  the read models are at position ${position} of ${head}: the next start ${position < head ? 'catches up' : 'rebuilds them'}; not compared`,
      );
      if (position > head) problem(`read models name position ${position}, past the log's last event ${head}`);
      return;
    }
    let differing = 0;
    for (const name of collections) {
      const [mine, fresh] = await Promise.all([allDocuments(stored, name), allDocuments(rebuilt, name)]);
      const differences: string[] = [];
      for (const [id, doc] of fresh) {
        const kept = mine.get(id);
        if (kept === undefined) differences.push(`${id} missing`);
        else if (kept !== doc) differences.push(`${id} differs`);
      }
      for (const id of mine.keys()) if (!fresh.has(id)) differences.push(`${id} should not exist`);
      if (differences.length === 0) continue;
      differing += 1;
      const shown = differences.slice(0, SHOWN).join(', ');
      problem(
        `read model ${name}: ${differences.length} document(s) differ from a rebuild (${shown}${differences.length > SHOWN ? ', …' : ''})`,
      );
    }
    if (differing === 0) say(`  ${collections.length} collections equal a fresh rebuild`);
  } finally {
    await stored.close();
  }
}

/** A collection's documents as canonical text (keys sorted), by `_id`. */
async function allDocuments(store: ReadStore, name: string): Promise<Map<string, string>> {
  const docs = new Map<string, string>();
  let after: string | undefined;
  do {
    const page = await store.collection(name).find({}, { sort: { _id: 1 }, limit: PAGE, after, count: false });
    for (const doc of page.items) docs.set(String(doc._id), sortedJson(doc));
    after = page.next;
  } while (after !== undefined);
  return docs;
}

function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) =>
    member && typeof member === 'object' && !Array.isArray(member)
      ? Object.fromEntries(Object.entries(member as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : member,
  );
}

/**
 * The two trees every space starts from are never stored (the content context knows them): the
 * empty file list and the empty tree, in canonical JSON (keys sorted).
 */
const EMPTY_FILE_LIST = sha256('{"files":[],"object":"file-list"}');
const WELL_KNOWN = new Set([EMPTY_FILE_LIST, sha256(`{"files":"${EMPTY_FILE_LIST}","object":"content-tree","pages":[],"variables":{}}`)]);

/** Walks every revision's tree (root, page nodes, bodies, file list, files); each blob is read once, its hash checked by the store. */
async function checkRevisionBlobs(
  reads: ReadStore,
  blobs: FsBlobStore,
  problem: (text: string) => void,
): Promise<{ revisions: number; blobs: number }> {
  const seen = new Set<string>();
  let revisions = 0;
  const visit = async (hash: unknown, what: string, revision: string, parse: boolean): Promise<void> => {
    if (typeof hash !== 'string' || seen.has(hash) || WELL_KNOWN.has(hash)) return;
    seen.add(hash);
    let bytes: Buffer;
    try {
      bytes = await blobs.read(hash);
    } catch (error) {
      if (error instanceof BlobNotFoundError) problem(`blob ${hash} (${what} of revision ${revision}) is missing`);
      else if (error instanceof BlobDamagedError) problem(`blob ${hash} (${what} of revision ${revision}) is damaged: ${error.problem}`);
      else problem(`blob ${hash} (${what} of revision ${revision}) cannot be read: ${messageOf(error)}`);
      return;
    }
    if (!parse) return;
    let node: Doc;
    try {
      node = JSON.parse(bytes.toString('utf8')) as Doc;
    } catch {
      problem(`blob ${hash} (${what} of revision ${revision}) is not JSON`);
      return;
    }
    if (node.object === 'content-tree') {
      for (const page of (node.pages as unknown[]) ?? []) await visit(page, 'page', revision, true);
      await visit(node.files, 'file list', revision, true);
    } else if (node.object === 'page-node') {
      await visit(node.document, 'page body', revision, false);
      for (const child of (node.children as unknown[]) ?? []) await visit(child, 'page', revision, true);
    } else if (node.object === 'file-list') {
      for (const entry of (node.files as Array<{ hash?: unknown; name?: unknown }>) ?? [])
        await visit(entry.hash, `file ${String(entry.name)}`, revision, false);
    }
  };
  let after: string | undefined;
  do {
    const page = await reads.collection(CONTENT_REVISIONS).find({}, { sort: { _id: 1 }, limit: PAGE, after, count: false });
    for (const revision of page.items) {
      revisions += 1;
      await visit(revision.tree, 'tree', String(revision._id), true);
    }
    after = page.next;
  } while (after !== undefined);
  return { revisions, blobs: seen.size };
}

function finish(io: CliIo, problems: string[]): number {
  if (problems.length === 0) {
    io.stdout.write('\nAll is well.\n');
    return OK;
  }
  io.stdout.write(`\n${problems.length} ${problems.length === 1 ? 'problem' : 'problems'} found.\n`);
  return FAILED;
}

function usage(io: CliIo, message: string): number {
  io.stderr.write(`${message}\n\nRun \`npm run cli -- help\` for the commands.\n`);
  return USAGE;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
