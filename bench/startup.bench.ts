/**
 * `npm run bench:startup` (also the part `startup` of `npm run bench`, BENCH_PARTS=startup):
 * start-up, rebuild and memory of the embedded service on a large log.
 *
 * 1. Seed (`npm run cli -- seed`): BENCH_STARTUP_EVENTS (1,000,000) events with 100 organizations,
 *    5,000 spaces and 100,000 pages, into a directory under the system's temporary directory keyed
 *    by the seed's sizes and the build digest of the code, reused by later runs of the same code
 *    (its read models are removed before each run; delete the directory to seed again).
 * 2. `npm run cli -- rebuild` from zero (the read models removed first) with its output piped (no
 *    terminal): events/s from its summary, its progress lines checked, and its peak resident memory
 *    (VmHWM from /proc/<pid>/status, sampled, with the peaks of its anonymous and file-backed parts):
 *    the replay a service starting from zero runs (both unmap their files as they go:
 *    docs/architecture.md, "The mapped pages of a replay"). Then a
 *    first start on the rebuilt read models; it runs until its reactors have read the seeded log (the
 *    seed bypasses them), then is stopped with SIGTERM. Before that start, a diagnostic: the log read
 *    and decoded alone (no projection), in pages through the event store (one page in four, spread
 *    over the whole log), the part of a rebuild's time per event that no projection work can take back.
 * 3. Start again (after that clean stop): time to `/health` 200 (read models from the file, nothing
 *    to replay); once `/health` says the read models are all in memory (loaded in the background), a read workload: GET the
 *    content of BENCH_STARTUP_PAGE_READS (500) different pages spread over every space, so the blob
 *    and tree caches fill; resident memory then.
 * 4. kill -9, start again: time to `/health` 200.
 *
 * Targets: start after a clean stop < 3 s, after kill -9 < 5 s; rebuild ≥ 40,000 events/s and ≥ 0.25 of
 * the rate of reading and decoding the log alone in the same run; RSS < 1 GiB with the log and the sizes above.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildDigest } from '#runtime/build-digest';
import { startService, type ServiceProcess } from './support/processes';
import { readLog } from './support/read-log';
import { positiveInteger } from './support/settings';

const MAIN_JS = join(__dirname, '../apps/api/src/main.js');
const CLI_JS = join(__dirname, '../apps/cli/src/main.js');

const SEED = {
  events: positiveInteger('BENCH_STARTUP_EVENTS', 1_000_000),
  organizations: positiveInteger('BENCH_STARTUP_ORGANIZATIONS', 100),
  members: positiveInteger('BENCH_STARTUP_MEMBERS', 20),
  spaces: positiveInteger('BENCH_STARTUP_SPACES', 5_000),
  pages: positiveInteger('BENCH_STARTUP_PAGES', 100_000),
};
const PAGE_READS = positiveInteger('BENCH_STARTUP_PAGE_READS', 500);
const READ_CONCURRENCY = 8;
/** Longest wait after the start for the read models to finish loading in the background. */
const LOAD_TIMEOUT_MS = 120_000;

const CLEAN_START_TARGET_S = 3;
const KILLED_START_TARGET_S = 5;
const REBUILD_TARGET = 40_000;
/** The rebuild's rate over that of reading and decoding the log alone, in the same run. */
const REBUILD_READING_RATIO_TARGET = 0.25;
/** The diagnostic read of the log reads one page in this many: the rate of the whole log in a quarter of the time. */
const LOG_READ_EVERY_NTH_PAGE = 4;
const RSS_TARGET_MB = 1024;

export interface StartupVerdict {
  ok: boolean;
  /** One line: PASS/FAIL, what, the figure and the target; INFO (always ok) for a diagnostic without a target. */
  text: string;
}

interface SeedManifest {
  events: number;
  organizations: Array<{ id: string; adminToken: string; spaces: Array<{ id: string; pages: string[] }> }>;
}

const execFileAsync = promisify(execFile);

/** Runs the part; prints as it goes and returns one verdict per target. */
export async function runStartupBench(): Promise<StartupVerdict[]> {
  console.log(
    `\nstartup bench: ${SEED.events} events, ${SEED.organizations} organizations of ${SEED.members} members, ${SEED.spaces} spaces, ${SEED.pages} pages`,
  );
  const dataDir = await seededDirectory();
  const manifest = JSON.parse(readFileSync(join(dataDir, 'seed.json'), 'utf8')) as SeedManifest;
  const verdicts: StartupVerdict[] = [];
  const verdict = (ok: boolean, text: string) => {
    verdicts.push({ ok, text: `${ok ? 'PASS' : 'FAIL'} ${text}` });
  };
  let service: ServiceProcess | undefined;
  try {
    // 2. The CLI's rebuild from zero (the read models are derived, so they are removed first), its output piped:
    // the replay's rate and its memory (the same projections a service starting from zero runs).
    rmSync(join(dataDir, 'readmodels'), { recursive: true, force: true });
    const rebuild = await runRebuild(dataDir);
    console.log(
      `rebuild: ${rebuild.events} events in ${rebuild.seconds.toFixed(1)} s; ${rebuild.progressLines} progress lines on a pipe; peak VmHWM ${rebuild.hwmMb} MB (peaks: anonymous ${rebuild.anonMb} MB, file-backed ${rebuild.fileMb} MB)`,
    );
    verdict(rebuild.progressLines >= 10, `rebuild reports progress without a terminal: ${rebuild.progressLines} lines`);
    const rebuildRate = rebuild.events / rebuild.seconds;
    verdict(
      rebuildRate >= REBUILD_TARGET,
      `rebuild ${rate(rebuild.events, rebuild.seconds)} events/s ≥ ${REBUILD_TARGET.toLocaleString('en-US')}`,
    );
    verdict(
      rebuild.hwmMb < RSS_TARGET_MB,
      `resident memory through a replay from zero (the rebuild): peak VmHWM ${rebuild.hwmMb} MB < ${RSS_TARGET_MB} MB (anonymous peak ${rebuild.anonMb} MB; the rest maps the log and the read-model file)`,
    );
    const reading = await readLog(join(dataDir, 'events'), LOG_READ_EVERY_NTH_PAGE);
    const budgetUs = 1e6 / REBUILD_TARGET;
    const readingUs = (reading.seconds * 1e6) / reading.events;
    console.log(
      `reading the log alone (no projection; one page of 4,096 events in ${LOG_READ_EVERY_NTH_PAGE}, over the whole log): ${reading.events} events in ${reading.seconds.toFixed(1)} s, ${rate(reading.events, reading.seconds)} events/s; ` +
        `of the ${budgetUs.toFixed(0)} µs per event a rebuild at ${REBUILD_TARGET.toLocaleString('en-US')}/s has, reading takes ${readingUs.toFixed(1)} µs, leaving ${Math.max(0, budgetUs - readingUs).toFixed(1)} µs for every projection`,
    );
    verdicts.push({
      ok: true,
      text: `INFO reading the log alone ${rate(reading.events, reading.seconds)} events/s: ${readingUs.toFixed(1)} of the rebuild target's ${budgetUs.toFixed(0)} µs per event`,
    });
    const readingRatio = rebuildRate / (reading.events / reading.seconds);
    verdict(
      readingRatio >= REBUILD_READING_RATIO_TARGET,
      `rebuild rate ${readingRatio.toFixed(2)} of reading and decoding the log alone ≥ ${REBUILD_READING_RATIO_TARGET}`,
    );

    // A first start on the rebuilt read models. The seed wrote its events straight into the log, so no reactor has
    // seen them yet: they catch up now, as on any first start of a log they never read. The service then runs until
    // they have, as a service in use would, and is stopped cleanly: the next start is one after a clean stop.
    service = await startService({ mainJs: MAIN_JS, dataDir, healthPollMs: 25, readyTimeoutMs: 10 * 60_000, nodeArgs: serviceNodeArgs() });
    console.log(`first start on the rebuilt read models: /health 200 after ${(service.readyMs / 1000).toFixed(2)} s`);
    const reactorSeconds = await reactorsCaughtUp(service);
    console.log(`  its reactors caught up with the log (read from their first event) ${reactorSeconds.toFixed(1)} s after that`);

    // 3. Clean stop, start; then the running service, its read models loaded in the background, reads many different pages.
    await service.stop();
    service = await startService({ mainJs: MAIN_JS, dataDir, healthPollMs: 10, readyTimeoutMs: 10 * 60_000, nodeArgs: serviceNodeArgs() });
    const cleanSeconds = service.readyMs / 1000;
    verdict(
      cleanSeconds < CLEAN_START_TARGET_S,
      `start after a clean stop: /health 200 after ${cleanSeconds.toFixed(2)} s < ${CLEAN_START_TARGET_S} s`,
    );
    console.log(`  memory at /health 200: ${describeMemory(memoryOf(service.pid))}`);

    const loadedSeconds = await readModelsLoaded(service);
    console.log(
      `  memory once the read models were loaded in the background (${loadedSeconds.toFixed(1)} s later): ${describeMemory(memoryOf(service.pid))}`,
    );
    const reads = await readPages(service, manifest, PAGE_READS);
    const afterReads = memoryOf(service.pid);
    console.log(
      `  ${reads.ok} page reads (${reads.failed} failed) in ${reads.seconds.toFixed(1)} s; memory then: ${describeMemory(afterReads)}`,
    );
    verdict(reads.failed === 0, `page reads answered 200: ${reads.ok} of ${reads.ok + reads.failed}`);
    verdict(
      afterReads.hwmMb < RSS_TARGET_MB,
      `resident memory of the running service after the reads: VmRSS ${afterReads.rssMb} MB, peak VmHWM ${afterReads.hwmMb} MB < ${RSS_TARGET_MB} MB`,
    );

    // 4. kill -9, start.
    await service.kill();
    service = await startService({ mainJs: MAIN_JS, dataDir, healthPollMs: 10, readyTimeoutMs: 10 * 60_000, nodeArgs: serviceNodeArgs() });
    const killedSeconds = service.readyMs / 1000;
    verdict(
      killedSeconds < KILLED_START_TARGET_S,
      `start after kill -9: /health 200 after ${killedSeconds.toFixed(2)} s < ${KILLED_START_TARGET_S} s`,
    );
    await service.stop();
    service = undefined;
  } finally {
    await service?.stop();
  }
  console.log('');
  for (const line of verdicts) console.log(line.text);
  return verdicts;
}

function serviceNodeArgs(): string[] {
  return (process.env.BENCH_SERVICE_NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean);
}

/** The seeded data directory for these sizes and this code: reused when a complete one is there. */
async function seededDirectory(): Promise<string> {
  const key = createHash('sha256').update(JSON.stringify(SEED)).update(buildDigest()).digest('hex').slice(0, 16);
  const dataDir = join(process.env.BENCH_DIR ?? tmpdir(), `bench-startup-seed-${key}`);
  if (existsSync(join(dataDir, 'seed.json'))) {
    console.log(`seed: reusing ${dataDir} (same sizes and code; delete it to seed again)`);
    return dataDir;
  }
  const partial = `${dataDir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  console.log(`seed: writing ${partial}, kept as ${dataDir} for later runs of the same code`);
  const args = [
    'seed',
    '--events',
    String(SEED.events),
    '--organizations',
    String(SEED.organizations),
    '--members',
    String(SEED.members),
    '--spaces',
    String(SEED.spaces),
    '--pages',
    String(SEED.pages),
  ];
  const started = performance.now();
  const { stdout, stderr } = await execFileAsync(process.execPath, [CLI_JS, ...args], {
    env: { ...process.env, DATA_DIR: partial, EVENTSTORE_URL: '', MONGODB_URL: '' },
    maxBuffer: 64 * 1024 * 1024,
  });
  // Its progress (a line per tenth, with the rate so far): the pages' content is the first tenth, and most of the time.
  process.stdout.write(`${stderr.trimEnd()}\n${stdout}`.replace(/^/gm, '  '));
  console.log(`  seed took ${((performance.now() - started) / 1000).toFixed(1)} s in all (process start included)`);
  renameSync(partial, dataDir);
  return dataDir;
}

interface Memory {
  rssMb: number;
  hwmMb: number;
  /** Of VmRSS: the process's own memory (heap, buffers) and the pages of files it maps (the log, the read-model file). */
  anonMb: number;
  fileMb: number;
}

/** VmRSS and VmHWM of a process, in MB (Linux; zeros elsewhere). */
function memoryOf(pid: number | undefined): Memory {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    const mb = (name: string) => Math.round(kb(name) / 1024);
    return { rssMb: mb('VmRSS'), hwmMb: mb('VmHWM'), anonMb: mb('RssAnon'), fileMb: mb('RssFile') };
  } catch {
    return { rssMb: 0, hwmMb: 0, anonMb: 0, fileMb: 0 };
  }
}

function describeMemory(memory: Memory): string {
  return `VmRSS ${memory.rssMb} MB, VmHWM ${memory.hwmMb} MB`;
}

/** Seconds until `/health` reports every reactor caught up with the log (a 10-minute limit). */
async function reactorsCaughtUp(service: ServiceProcess): Promise<number> {
  const started = performance.now();
  for (;;) {
    const health = (await (await fetch(`${service.baseUrl}/health`)).json()) as { reactors?: Array<{ caughtUp: boolean }> };
    if ((health.reactors ?? []).every((reactor) => reactor.caughtUp)) return (performance.now() - started) / 1000;
    if (performance.now() - started > 10 * 60_000) throw new Error('the reactors did not catch up within 10 minutes');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Seconds until the service's read store says every read model is in memory (`/health`: no detail on the read store). */
async function readModelsLoaded(service: ServiceProcess): Promise<number> {
  const started = performance.now();
  for (;;) {
    const health = (await (await fetch(`${service.baseUrl}/health`)).json()) as {
      stores?: { readStore?: { ok: boolean; detail?: string } };
    };
    const readStore = health.stores?.readStore;
    if (readStore?.ok && readStore.detail === undefined) return (performance.now() - started) / 1000;
    if (performance.now() - started > LOAD_TIMEOUT_MS)
      throw new Error(`the read models were not loaded within ${LOAD_TIMEOUT_MS / 1000} s: ${JSON.stringify(readStore)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** GETs the content of `count` different pages, spread over every space, `READ_CONCURRENCY` at a time. */
async function readPages(
  service: ServiceProcess,
  manifest: SeedManifest,
  count: number,
): Promise<{ ok: number; failed: number; seconds: number }> {
  const targets: Array<{ path: string; token: string }> = [];
  const spaces = manifest.organizations.flatMap((organization) =>
    organization.spaces.map((space) => ({ space, token: organization.adminToken })),
  );
  for (let round = 0; targets.length < count && spaces.length > 0; round += 1) {
    let added = 0;
    for (const { space, token } of spaces) {
      if (targets.length >= count) break;
      const page = space.pages[round];
      if (page === undefined) continue;
      targets.push({ path: `/v1/spaces/${space.id}/content/page/${page}`, token });
      added += 1;
    }
    if (added === 0) break;
  }
  let next = 0;
  let ok = 0;
  let failed = 0;
  let firstFailure: string | undefined;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: READ_CONCURRENCY }, async () => {
      while (next < targets.length) {
        const { path, token } = targets[next++];
        const response = await fetch(`${service.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
        const body = await response.text();
        if (response.status === 200) ok += 1;
        else {
          failed += 1;
          firstFailure ??= `${response.status} ${path}: ${body.slice(0, 200)}`;
        }
      }
    }),
  );
  if (firstFailure) console.log(`  first failed read: ${firstFailure}`);
  return { ok, failed, seconds: (performance.now() - started) / 1000 };
}

/** `npm run cli -- rebuild` as a child with piped output: the events and seconds of its summary, and its progress lines. */
async function runRebuild(
  dataDir: string,
): Promise<{ events: number; seconds: number; progressLines: number; hwmMb: number; anonMb: number; fileMb: number }> {
  const child = spawn(process.execPath, [CLI_JS, 'rebuild'], {
    env: { ...process.env, DATA_DIR: dataDir, EVENTSTORE_URL: '', MONGODB_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const peak = { hwmMb: 0, anonMb: 0, fileMb: 0 };
  const sample = setInterval(() => {
    const now = memoryOf(child.pid);
    peak.hwmMb = Math.max(peak.hwmMb, now.hwmMb);
    peak.anonMb = Math.max(peak.anonMb, now.anonMb);
    peak.fileMb = Math.max(peak.fileMb, now.fileMb);
  }, 250);
  const code = await new Promise<number | null>((done) => child.once('exit', (exitCode) => done(exitCode)));
  clearInterval(sample);
  const summary = /Replayed (\d+) events? in ([\d.]+) s\./.exec(stdout);
  if (code !== 0 || !summary) throw new Error(`rebuild exited with ${code}:\n${stdout}\n${stderr}`);
  const progressLines = stderr.split('\n').filter((line) => /^rebuilding read models: \d+% \(\d+ events\)$/.test(line)).length;
  return { events: Number(summary[1]), seconds: Number(summary[2]), progressLines, ...peak };
}

function rate(events: number, seconds: number): string {
  return Math.round(events / seconds).toLocaleString('en-US');
}

if (require.main === module) {
  runStartupBench().then(
    (verdicts) => {
      if (verdicts.some((v) => !v.ok)) process.exitCode = 1;
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
