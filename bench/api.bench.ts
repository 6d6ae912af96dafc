/**
 * `npm run bench`: HTTP throughput and latency of the API, end to end, on the embedded stores.
 *
 * The service runs as a user runs it (`node dist/apps/api/src/main.js`, fresh DATA_DIR, LOG_LEVEL=warn)
 * in a child process; autocannon drives it from this process. The reference is a bare Fastify 5
 * server (bench/support/reference-server.ts, its own process by default so that, like the service,
 * it does not share an event loop with autocannon; BENCH_REFERENCE=inline runs it in this process)
 * answering the very JSON body the service returned for the organization.
 *
 * - reference: GET on the bare route;
 * - GET /v1/orgs/{id} on the service (bearer token): after the first request, answered by the
 *   response cache (libs/platform/src/http/response-cache.ts), as any repeated read between writes;
 * - bare Nest (bench/support/nest-reference-server.ts): the smallest Nest + Fastify application
 *   answering the same body, a diagnostic without a target: the framework floor, the most any route
 *   of a Nest service reaches against the bare route on this machine;
 * - the same GET with `Cache-Control: no-cache`, a diagnostic without a target: the full path
 *   (token lookup, guard, Nest router, query handler, presenter) on every request;
 * - PATCH /v1/orgs/{id} with a title that changes on every request, so every request appends an
 *   event: every connection on the same organization (the target), then, as a diagnostic without a
 *   target, one organization per connection (no optimistic-concurrency conflicts between connections).
 *
 * Targets (docs/performance.md): the cached GET ≥ 60% of the reference's requests/s; PATCH on one
 * organization at 10 connections ≤ 0.35 ms of the service's main-thread CPU per write (/proc/<pid>/task/<pid>/stat),
 * p99 < 50 ms. Any failed PATCH (non-2xx or connection error) makes the run invalid, and so
 * does a stream that did not grow by the number of successful PATCHes. Latency percentiles cover
 * every response (autocannon's own histogram has whole-millisecond resolution and skips non-2xx).
 * - every read area (bench/support/areas.ts: organization, member list, space, collection, page by
 *   path, change request, comment list, site, published site page, integration, OpenAPI spec),
 *   seeded through the API at start, uncached (`Cache-Control: no-cache`), each against the bare
 *   route answering its very body (one reference process serving them all) and against the framework
 *   floor answering it (one Nest process serving them all), alternating in slices: requests/s, p99,
 *   the ratio to the floor and a PASS/FAIL verdict (≥ 0.70; the member list, 20 members, ≥ 0.60 too),
 *   and each process's CPU time per request (utime + stime from /proc, steadier than requests/s on a
 *   shared machine).
 *
 * Environment: BENCH_SECONDS (4), BENCH_CONNECTIONS (10), BENCH_WARMUP_SECONDS (1), BENCH_ROUNDS (5),
 * BENCH_AREA_SECONDS (2, per area), BENCH_AREA_WARMUP_SECONDS (0.5), BENCH_AREA_ROUNDS (2),
 * BENCH_AREAS (only the areas whose names contain one of these, comma-separated), BENCH_PARTS
 * (`get,areas,patch,mixed,lists,startup` by default: which parts run; `mixed` is bench/support/mixed.ts,
 * `lists` (every list at two sizes) bench/support/lists.ts and `startup` (a 1,000,000-event log's
 * start-up, rebuild and memory) bench/startup.bench.ts, their settings there),
 * BENCH_SERVICE_NODE_OPTIONS (extra node flags for the service, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { load, loadInterleaved, type LoadResult } from './support/load';
import { captureAreas, seedAreas } from './support/areas';
import { measureLists } from './support/lists';
import { runMixed } from './support/mixed';
import {
  cpuSecondsOf,
  mainThreadCpuSecondsOf,
  startNestReference,
  startNestReferenceRoutes,
  startReference,
  startReferenceRoutes,
  startService,
  type ReferenceProcess,
  type ServiceProcess,
} from './support/processes';
import { listenReference, listenReferenceRoutes } from './support/reference-server';
import { nonNegative, positive } from './support/settings';
import { runStartupBench } from './startup.bench';

const SECONDS = positive('BENCH_SECONDS', 4);
const CONNECTIONS = Math.max(1, Math.round(positive('BENCH_CONNECTIONS', 10)));
const WARMUP_SECONDS = nonNegative('BENCH_WARMUP_SECONDS', 1);
/** The reference and the service GET are measured in this many alternating slices of BENCH_SECONDS / BENCH_ROUNDS. */
const ROUNDS = Math.max(1, Math.round(positive('BENCH_ROUNDS', 5)));
const MAIN_JS = join(__dirname, '../apps/api/src/main.js');
/** Each read area (bench/support/areas.ts) is measured in slices totalling this many seconds, after a warm-up of BENCH_AREA_WARMUP_SECONDS. */
const AREA_SECONDS = positive('BENCH_AREA_SECONDS', 2);
const AREA_WARMUP_SECONDS = nonNegative('BENCH_AREA_WARMUP_SECONDS', 0.5);
const AREA_ROUNDS = Math.max(1, Math.round(positive('BENCH_AREA_ROUNDS', 2)));
/** Which parts run: `get` (the organization, cached and not), `areas` (every read area, uncached), `patch`, `mixed`, `lists`, `startup`; all by default. */
const ALL_PARTS = ['get', 'areas', 'patch', 'mixed', 'lists', 'startup'];
const PARTS = new Set((process.env.BENCH_PARTS || ALL_PARTS.join(',')).split(',').map((part) => part.trim()));
/** The whole run, every part, seed included when it is not reused: under 10 minutes. */
const RUN_TARGET_SECONDS = 600;
/** Only the areas whose name contains one of these (comma-separated, case-insensitive); all by default. */
const AREA_FILTER = (process.env.BENCH_AREAS ?? '')
  .split(',')
  .map((name) => name.trim().toLowerCase())
  .filter(Boolean);

/** The child processes, stopped on the way out whatever happens (also on Ctrl-C). */
let service: ServiceProcess | undefined;
let reference: ReferenceProcess | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the service`);
    void Promise.allSettled([reference?.stop(), service?.stop()]).then(() => process.exit(130));
  });
}

/** The cached organization GET over bare Fastify serving its body. */
const GET_RATIO_TARGET = 0.6;
/** Each read area, uncached, over the smallest Nest application serving its body (the framework floor). */
const AREA_FLOOR_RATIO_TARGET = 0.7;
/** The member list (20 members) over the framework floor serving its body. */
const MEMBER_LIST_FLOOR_RATIO_TARGET = 0.6;
/** Main-thread CPU per organization PATCH at BENCH_CONNECTIONS connections on one organization, in µs. */
const PATCH_MAIN_THREAD_CPU_TARGET_US = 350;
const PATCH_P99_TARGET_MS = 50;

interface Reply {
  status: number;
  body: unknown;
  headers: Headers;
}

async function call(method: string, url: string, token?: string, body?: unknown): Promise<Reply> {
  const response = await fetch(url, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

async function expectStatus(expected: number, reply: Promise<Reply>, what: string): Promise<Reply> {
  const answer = await reply;
  if (answer.status !== expected) throw new Error(`${what}: expected ${expected}, got ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer;
}

/** The log head (last global position) from `/health`: it grows by one for every appended event. */
async function logHead(api: ServiceProcess): Promise<number | null> {
  const { body } = await call('GET', `${api.baseUrl}/health`);
  const head = (body as { projections?: { head?: string | null } }).projections?.head;
  return head === null || head === undefined ? null : Number(head);
}

/** The organization stream's revision, from the ETag of a GET (docs/architecture.md, HTTP conventions: ETag = stream revision). */
async function streamRevision(api: ServiceProcess, organizationId: string, token: string): Promise<number> {
  const reply = await expectStatus(200, call('GET', `${api.baseUrl}/v1/orgs/${organizationId}`, token), 'GET organization');
  const etag = reply.headers.get('etag') ?? '';
  const match = /"(\d+)"/.exec(etag);
  if (!match) throw new Error(`GET organization: no revision ETag (got '${etag}')`);
  return Number(match[1]);
}

/** The process's CPU time (user + system) since `before`, per request answered in the run (warm-up included), in µs; null without /proc. */
function cpuPerRequest(pid: number | undefined, before: number | null, result: LoadResult): number | null {
  const after = cpuSecondsOf(pid);
  const requests = result.total + result.warmup2xx + result.warmupFailures;
  return after === null || before === null || requests === 0 ? null : ((after - before) * 1e6) / requests;
}

interface Row {
  name: string;
  result: LoadResult;
  ratio?: number;
  verdicts: { ok: boolean; text: string }[];
}

const fixed = (n: number, digits = 1) => n.toFixed(digits);
const thousands = (n: number) => Math.round(n).toLocaleString('en-US');

function printTable(rows: Row[]): void {
  const columns = ['measure', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'non-2xx', 'errors', 'vs bare', 'targets'];
  const cells = rows.map((row) => [
    row.name,
    thousands(row.result.requestsPerSecond),
    fixed(row.result.p50, 2),
    fixed(row.result.p99, 2),
    thousands(row.result.total),
    String(row.result.non2xx),
    String(row.result.errors),
    row.ratio === undefined ? '' : `${fixed(row.ratio * 100, 0)}%`,
    row.verdicts.map((v) => v.text).join('; '),
  ]);
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i].length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (i === 0 || i === values.length - 1 ? v.padEnd(widths[i]) : v.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  console.log(line(columns));
  for (const row of cells) console.log(line(row));
}

async function main(): Promise<void> {
  const cores = availableParallelism();
  console.log(`\nbench (API)  node ${process.version}, ${cores} core(s) (${cpus()[0]?.model.trim() ?? 'unknown cpu'})`);
  console.log(
    `${SECONDS}s measured per run after a ${WARMUP_SECONDS}s warm-up (reference and service GET alternate in ${ROUNDS} slices each), ` +
      `${CONNECTIONS} connection(s), no pipelining, HTTP/1.1 keep-alive on 127.0.0.1; req/s = completed requests / measured seconds.`,
  );
  console.log(
    `The service (its own node process), the bare Fastify reference and autocannon (this process) share these ${cores} core(s): ` +
      'the load generator takes CPU from the server, so the figures are lower bounds of what the service does on its own.\n',
  );

  const rows: Row[] = [];
  const notes: string[] = [];
  let invalid = false;
  const benchStarted = performance.now();
  const took: string[] = [];
  let lap = benchStarted;
  /** Records how long the part just finished took (since the previous one ended). */
  const partDone = (name: string) => {
    const now = performance.now();
    took.push(`${name} ${Math.round((now - lap) / 1000)} s`);
    lap = now;
  };
  // Its own services on its own data directory, before this run's service starts.
  const startup = PARTS.has('startup') ? await runStartupBench() : [];
  if (PARTS.has('startup')) partDone('startup');
  if (startup.some((verdict) => !verdict.ok)) invalid = true;
  notes.push(...startup.map((verdict) => `startup: ${verdict.text}`));
  try {
    service = await startService({
      mainJs: MAIN_JS,
      nodeArgs: (process.env.BENCH_SERVICE_NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean),
    });
    const live = service;
    console.log(`service: pid ${live.pid} at ${live.baseUrl}, data in ${live.dataDir}`);

    const runId = randomBytes(3).toString('hex');
    const created = await expectStatus(
      201,
      call('POST', `${live.baseUrl}/v1/admin/users`, live.adminToken, { email: `bench-${runId}@example.com`, displayName: 'Bench User' }),
      'POST /v1/admin/users',
    );
    const token = (created.body as { token?: unknown }).token;
    if (typeof token !== 'string') throw new Error(`POST /v1/admin/users: no token in ${JSON.stringify(created.body)}`);
    const org = await expectStatus(201, call('POST', `${live.baseUrl}/v1/orgs`, token, { title: `Bench org ${runId}` }), 'POST /v1/orgs');
    const organizationId = (org.body as { id?: unknown }).id;
    if (typeof organizationId !== 'string') throw new Error(`POST /v1/orgs: no id in ${JSON.stringify(org.body)}`);
    const orgPath = `/v1/orgs/${organizationId}`;
    const captured = await expectStatus(200, call('GET', `${live.baseUrl}${orgPath}`, token), `GET ${orgPath}`);
    const auth = { authorization: `Bearer ${token}` };
    partDone('service start');

    const getInvalid = (result: LoadResult) =>
      result.non2xx + result.errors > 0 ? [{ ok: false, text: `INVALID (${result.non2xx} non-2xx, ${result.errors} errors)` }] : [];

    if (PARTS.has('get')) {
      // Reference: the same body from a bare Fastify route.
      let inline: Awaited<ReturnType<typeof listenReference>> | undefined;
      let referenceUrl: string;
      if (process.env.BENCH_REFERENCE === 'inline') {
        inline = await listenReference(captured.body);
        referenceUrl = `http://127.0.0.1:${inline.port}`;
      } else {
        reference = await startReference(captured.body);
        referenceUrl = reference.baseUrl;
      }
      const check = await expectStatus(200, call('GET', `${referenceUrl}${orgPath}`), 'reference GET');
      if (JSON.stringify(check.body) !== JSON.stringify(captured.body))
        throw new Error('the reference does not answer the same body as the service');
      console.log(
        `reference: bare Fastify ${inline ? 'in this process' : 'in its own process'} at ${referenceUrl}, ${JSON.stringify(captured.body).length}-byte body`,
      );

      // The framework floor: the smallest Nest application answering the same body (no target; what any Nest route can reach at most).
      const nestReference = await startNestReference(captured.body);
      process.stdout.write(
        'running: reference GET, bare Nest GET, service GET and service GET bypassing the response cache (alternating) … ',
      );
      const [bare, nestFloor, get, uncached] = await loadInterleaved(
        [
          { url: `${referenceUrl}${orgPath}`, connections: CONNECTIONS, headers: auth },
          { url: `${nestReference.baseUrl}${orgPath}`, connections: CONNECTIONS, headers: auth },
          { url: `${live.baseUrl}${orgPath}`, connections: CONNECTIONS, headers: auth },
          { url: `${live.baseUrl}${orgPath}`, connections: CONNECTIONS, headers: { ...auth, 'cache-control': 'no-cache' } },
        ],
        SECONDS,
        WARMUP_SECONDS,
        ROUNDS,
      );
      await inline?.server.close();
      await reference?.stop();
      await nestReference.stop();
      reference = undefined;
      rows.push({ name: 'bare Fastify GET /v1/orgs/:id (reference)', result: bare, verdicts: getInvalid(bare) });
      const floor = nestFloor.requestsPerSecond / bare.requestsPerSecond;
      rows.push({
        name: 'bare Nest GET /v1/orgs/:id (framework floor)',
        result: nestFloor,
        ratio: floor,
        verdicts: [{ ok: true, text: 'diagnostic: the most any Nest route reaches' }, ...getInvalid(nestFloor)],
      });
      notes.push(
        `framework floor: the smallest Nest + Fastify application answering the same body reaches ${fixed(floor, 2)} of bare Fastify (${thousands(nestFloor.requestsPerSecond)} vs ${thousands(bare.requestsPerSecond)} req/s)`,
      );
      const ratio = get.requestsPerSecond / bare.requestsPerSecond;
      rows.push({
        name: `service GET /v1/orgs/{id}`,
        result: get,
        ratio,
        verdicts: [
          { ok: ratio >= GET_RATIO_TARGET, text: `${ratio >= GET_RATIO_TARGET ? 'met' : 'MISSED'} (≥ ${GET_RATIO_TARGET * 100}% of bare)` },
          ...getInvalid(get),
        ],
      });
      rows.push({
        name: `service GET, Cache-Control: no-cache`,
        result: uncached,
        ratio: uncached.requestsPerSecond / bare.requestsPerSecond,
        verdicts: [{ ok: true, text: 'diagnostic, no target (the handler runs every time)' }, ...getInvalid(uncached)],
      });
      partDone('get');
    }

    if (PARTS.has('areas')) {
      process.stdout.write('seeding the read areas through the API … ');
      const seeded = await seedAreas(live.baseUrl, live.adminToken, token, runId);
      const areas =
        AREA_FILTER.length === 0 ? seeded : seeded.filter((area) => AREA_FILTER.some((name) => area.name.toLowerCase().includes(name)));
      await captureAreas(live.baseUrl, areas);
      const routes = areas.map((area) => ({ route: area.route, body: area.body!, contentType: area.contentType! }));
      let inline: Awaited<ReturnType<typeof listenReferenceRoutes>> | undefined;
      let referenceUrl: string;
      if (process.env.BENCH_REFERENCE === 'inline') {
        inline = await listenReferenceRoutes(routes);
        referenceUrl = `http://127.0.0.1:${inline.port}`;
      } else {
        reference = await startReferenceRoutes(routes);
        referenceUrl = reference.baseUrl;
      }
      // The framework floor for each area: the smallest Nest application answering the same body at the same route.
      const nestFloor = await startNestReferenceRoutes(routes);
      for (const area of areas) {
        for (const [which, url] of [
          ['bare', referenceUrl],
          ['Nest', nestFloor.baseUrl],
        ]) {
          const check = await fetch(`${url}${area.path}`);
          const text = await check.text();
          const same = area.contentType!.startsWith('application/json')
            ? JSON.stringify(JSON.parse(text)) === JSON.stringify(JSON.parse(area.body!))
            : text === area.body;
          if (check.status !== 200 || !same)
            throw new Error(`the ${which} reference does not answer the same body as the service for ${area.name}`);
        }
      }
      console.log(
        `${areas.length} area(s), ${AREA_SECONDS}s each after ${AREA_WARMUP_SECONDS}s warm-up, ${AREA_ROUNDS} alternating slices, Cache-Control: no-cache\n`,
      );
      const verdictLines: string[] = [];
      for (const area of areas) {
        process.stdout.write(`  ${area.name} … `);
        const headers = { ...(area.token ? { authorization: `Bearer ${area.token}` } : {}), 'cache-control': 'no-cache' };
        // CPU per request of each process: a steadier figure than requests/s on a shared machine (each is idle while the other is loaded).
        const cpuBefore = [cpuSecondsOf(reference?.pid), cpuSecondsOf(nestFloor.pid), cpuSecondsOf(live.pid)];
        const [bare, floor, served] = await loadInterleaved(
          [
            { url: `${referenceUrl}${area.path}`, connections: CONNECTIONS, headers },
            { url: `${nestFloor.baseUrl}${area.path}`, connections: CONNECTIONS, headers },
            { url: `${live.baseUrl}${area.path}`, connections: CONNECTIONS, headers },
          ],
          AREA_SECONDS,
          AREA_WARMUP_SECONDS,
          AREA_ROUNDS,
        );
        const [bareCpu, floorCpu, servedCpu] = [
          cpuPerRequest(reference?.pid, cpuBefore[0], bare),
          cpuPerRequest(nestFloor.pid, cpuBefore[1], floor),
          cpuPerRequest(live.pid, cpuBefore[2], served),
        ];
        const cpuText =
          bareCpu === null || floorCpu === null || servedCpu === null
            ? ''
            : `, CPU ${fixed(servedCpu, 0)} µs/request (floor ${fixed(floorCpu, 0)}, bare ${fixed(bareCpu, 0)})`;
        const ratio = served.requestsPerSecond / floor.requestsPerSecond;
        const target =
          area.name === 'member list' ? Math.max(AREA_FLOOR_RATIO_TARGET, MEMBER_LIST_FLOOR_RATIO_TARGET) : AREA_FLOOR_RATIO_TARGET;
        const ok = ratio >= target;
        const size = area.body!.length;
        rows.push({ name: `bare GET ${area.name} (reference, ${thousands(size)} B)`, result: bare, verdicts: getInvalid(bare) });
        rows.push({
          name: `bare Nest GET ${area.name} (framework floor)`,
          result: floor,
          ratio: floor.requestsPerSecond / bare.requestsPerSecond,
          verdicts: [{ ok: true, text: 'reference' }, ...getInvalid(floor)],
        });
        rows.push({
          name: `service GET ${area.name}, uncached`,
          result: served,
          ratio: served.requestsPerSecond / bare.requestsPerSecond,
          verdicts: [{ ok, text: `${ok ? 'met' : 'MISSED'} (${fixed(ratio, 2)} of the floor ≥ ${target})` }, ...getInvalid(served)],
        });
        const line =
          `${ok && served.non2xx + served.errors === 0 ? 'PASS' : 'FAIL'}  ${area.name.padEnd(20)} ${thousands(served.requestsPerSecond).padStart(7)} req/s ` +
          `(floor ${thousands(floor.requestsPerSecond)}, bare ${thousands(bare.requestsPerSecond)}), p99 ${fixed(served.p99, 2)} ms (floor ${fixed(floor.p99, 2)}), ` +
          `ratio to the floor ${fixed(ratio, 2)} (target ≥ ${target})${cpuText}   GET ${area.route}`;
        verdictLines.push(line);
        console.log(`${fixed(ratio, 2)}`);
      }
      notes.push(
        'read areas, uncached, each against the smallest Nest application serving its body (the framework floor):',
        ...verdictLines.map((line) => `  ${line}`),
      );
      await inline?.server.close();
      await nestFloor.stop();
      await reference?.stop();
      reference = undefined;
      partDone('areas');
    }

    if (PARTS.has('patch')) {
      // PATCH: every request carries a title never sent before, so every one appends an event.
      let sequence = 0;
      const failures: { status: number; body: string }[] = [];
      const patchTo = (path: string): autocannon.Request => ({
        method: 'PATCH',
        path,
        headers: { ...auth, 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: JSON.stringify({ title: `Bench org ${runId} #${++sequence}` }) }),
      });
      const recordFailure = (status: number, body: string) => {
        if ((status < 200 || status >= 300) && failures.length < 10) failures.push({ status, body: body.slice(0, 300) });
      };
      const writes = async (name: string, organizationIds: string[], target: boolean): Promise<boolean> => {
        const headBefore = await logHead(live);
        const before = await Promise.all(organizationIds.map((id) => streamRevision(live, id, token)));
        failures.length = 0;
        const mainThreadBefore = mainThreadCpuSecondsOf(live.pid);
        const paths = organizationIds.map((id) => `/v1/orgs/${id}`);
        const result = await load(
          {
            url: `${live.baseUrl}${paths[0]}`,
            connections: CONNECTIONS,
            requestsFor: (connection) => [patchTo(paths[connection % paths.length])],
            onResponse: recordFailure,
          },
          SECONDS,
          WARMUP_SECONDS,
        );
        const failed = result.non2xx + result.errors + result.warmupFailures;
        const mainThreadAfter = mainThreadCpuSecondsOf(live.pid);
        const answered = result.total + result.warmup2xx + result.warmupFailures;
        const mainThreadUs =
          mainThreadBefore === null || mainThreadAfter === null || answered === 0
            ? null
            : ((mainThreadAfter - mainThreadBefore) * 1e6) / answered;
        const cpuOk = mainThreadUs !== null && mainThreadUs <= PATCH_MAIN_THREAD_CPU_TARGET_US;
        const verdicts = target
          ? [
              {
                ok: cpuOk,
                text: `${cpuOk ? 'met' : 'MISSED'} (main-thread CPU ${mainThreadUs === null ? 'n/a' : `${fixed(mainThreadUs, 0)} µs`} per write ≤ ${PATCH_MAIN_THREAD_CPU_TARGET_US} µs)`,
              },
              {
                ok: result.p99 < PATCH_P99_TARGET_MS,
                text: `${result.p99 < PATCH_P99_TARGET_MS ? 'met' : 'MISSED'} (p99 < ${PATCH_P99_TARGET_MS} ms)`,
              },
            ]
          : [
              {
                ok: true,
                text: `diagnostic, no target (main-thread CPU ${mainThreadUs === null ? 'n/a' : `${fixed(mainThreadUs, 0)} µs`} per write)`,
              },
            ];
        if (failed > 0) verdicts.push({ ok: false, text: `INVALID (${failed} failed)` });
        rows.push({ name, result, verdicts });

        const headAfter = await logHead(live);
        const after = await Promise.all(organizationIds.map((id) => streamRevision(live, id, token)));
        const succeeded =
          result.warmup2xx + Object.entries(result.statusCodes).reduce((n, [code, count]) => (code.startsWith('2') ? n + count : n), 0);
        const appended = after.reduce((sum, revision, i) => sum + revision - before[i], 0);
        const streams = organizationIds.length === 1 ? 'the organization stream' : `the ${organizationIds.length} organization streams`;
        notes.push(
          `${name}: ${thousands(succeeded)} PATCHes answered 2xx (warm-up included); ${streams} grew by ${thousands(appended)} events ` +
            `(now ${after.map((r) => thousands(r + 1)).join(', ')}); log head ${headBefore ?? 'none'} → ${headAfter ?? 'none'}.`,
        );
        // Requests still in flight when autocannon stops (at most one per connection, per run) are applied but never counted.
        let ok = true;
        if (appended < succeeded || appended > succeeded + 2 * CONNECTIONS) {
          notes.push(`  MISMATCH: ${thousands(succeeded)} successful PATCHes but ${thousands(appended)} events appended.`);
          ok = false;
        }
        if (failed > 0) {
          notes.push(
            `  failures: ${result.non2xx} non-2xx and ${result.errors} connection errors/timeouts measured, ${result.warmupFailures} during warm-up; status codes ${JSON.stringify(result.statusCodes)}; first ones:`,
          );
          for (const failure of failures) notes.push(`    ${failure.status} ${failure.body}`);
        }
        return ok;
      };

      process.stdout.write('service PATCH (one organization) … ');
      if (!(await writes(`service PATCH /v1/orgs/{id}, 1 org`, [organizationId], true))) invalid = true;
      const spread: string[] = [];
      for (let i = 0; i < CONNECTIONS; i++) {
        const created = await expectStatus(
          201,
          call('POST', `${live.baseUrl}/v1/orgs`, token, { title: `Bench org ${runId} c${i}` }),
          'POST /v1/orgs',
        );
        spread.push((created.body as { id: string }).id);
      }
      process.stdout.write('service PATCH (one organization per connection) …\n\n');
      if (!(await writes(`service PATCH /v1/orgs/{id}, 1 org/conn`, spread, false))) invalid = true;
      partDone('patch');
    }

    if (PARTS.has('mixed')) {
      const mixed = await runMixed(live, token, runId);
      rows.push(...mixed.rows);
      notes.push(...mixed.notes);
      partDone('mixed');
    }

    // Last: it seeds thousands of resources into this service, which the parts above did not measure with.
    if (PARTS.has('lists')) {
      rows.push(...(await measureLists(live, token, runId)));
      partDone('lists');
    }

    const seconds = Math.round((performance.now() - benchStarted) / 1000);
    const everyPart = ALL_PARTS.every((part) => PARTS.has(part));
    const inTime = seconds < RUN_TARGET_SECONDS;
    if (everyPart && !inTime) invalid = true;
    notes.push(
      `${everyPart ? (inTime ? 'PASS' : 'FAIL') : 'INFO'} the run took ${seconds} s (${took.join(', ')})` +
        (everyPart ? ` < ${RUN_TARGET_SECONDS} s` : ` (some parts only; the ${RUN_TARGET_SECONDS} s target is for every part)`),
    );

    printTable(rows);
    console.log('');
    for (const note of notes) console.log(note);

    const serviceOutput = live.output().trim();
    if (serviceOutput) console.log(`\nservice output (warn and above, last lines):\n${serviceOutput.split('\n').slice(-10).join('\n')}`);

    const missed = rows.flatMap((row) => row.verdicts).filter((v) => !v.ok);
    if (missed.length > 0 || invalid) process.exitCode = 1;
    console.log(missed.length > 0 || invalid ? '\nresult: target(s) MISSED or run invalid' : '\nresult: all targets met');
  } finally {
    await reference?.stop();
    await service?.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
