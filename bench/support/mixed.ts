/**
 * The mixed workload of the API benchmark (`BENCH_PARTS=mixed`): reads and writes at once, over
 * many resources, as a busy service sees them.
 *
 * Seeded through the API: BENCH_MIXED_ORGS organizations (20), each with 10 members joined through a
 * link invite, 10 spaces, 2 pages per space and 2 comments per space. Then BENCH_MIXED_CONNECTIONS
 * (50) connections for BENCH_MIXED_SECONDS (20, after a 3 s warm-up) where every request is chosen
 * at random (seeded per connection): a write with probability BENCH_MIXED_WRITE_SHARE (0.1), else a
 * read. Reads are spread evenly over five areas (organization, member list, space, page by path,
 * comment list) and over every seeded resource; writes over four kinds (organization title,
 * space title, page title, new comment) and every resource. Reads send no Cache-Control: the
 * response cache is in effect, as for any client; a write forgets only the answers that read what it wrote.
 *
 * Measured: reads/s and writes/s, p50/p99 of each over every response (bench/support/load.ts,
 * kindOf), the response cache's hit ratio over the reads (hits of `http_response_cache_lookups`
 * over the GETs of `http_requests_total`, both over the whole run, warm-up included; target ≥ 0.8),
 * non-2xx and connection errors (any makes the run invalid), read-your-writes time-outs
 * (`read_your_writes_timeouts_total`, /metrics, before and after: any is a failure), and projection
 * lag: `projection_apply_lag_seconds` (/metrics, the difference over the measured run), the time
 * from an event's recorded time (taken by the event store as the append starts, before its commit
 * and flush) to the commit of its projections' writes. Its p99 is given as the bound of the first
 * histogram bucket holding 99% of the run's events; 50 ms is a bucket bound, so the verdict is exact.
 *
 * Then, for the sizing in docs/distributed.md (no targets): the service's CPU time per request, from
 * /proc/<pid>/stat over a run of reads only and one of writes only (BENCH_MIXED_CPU_SECONDS, 5 s each,
 * same generators). In embedded mode a write's CPU includes its projection and the LMDB commit.
 *
 * Last, the in-run reference: the framework floor (nest-reference-server.ts, the smallest Nest
 * application answering an organization's JSON) under the same connections, 3 s after a 1 s warm-up
 * (a constant route settles at once). No Nest service answers more requests/s than it. Targets:
 * reads and writes together ≥ 0.40 of its requests/s, write p99 < 50 ms, read p99 < 20 ms,
 * projection lag p99 < 50 ms, no read-your-writes time-out, cache hit ratio ≥ 0.8.
 */
import type autocannon from 'autocannon';
import { cpuSecondsOf, startNestReference, type ServiceProcess } from './processes';
import { call, expectStatus, poster, stringField } from './http';
import { load, type LoadResult } from './load';
import { positive, positiveInteger, seededRandom } from './settings';

const CONNECTIONS = positiveInteger('BENCH_MIXED_CONNECTIONS', 50);
const SECONDS = positive('BENCH_MIXED_SECONDS', 20);
const WARMUP_SECONDS = 3;
const CPU_SECONDS = positive('BENCH_MIXED_CPU_SECONDS', 5);
const FLOOR_SECONDS = 3;
const FLOOR_WARMUP_SECONDS = 1;
const WRITE_SHARE = positive('BENCH_MIXED_WRITE_SHARE', 0.1);
const ORGANIZATIONS = positiveInteger('BENCH_MIXED_ORGS', 20);
const MEMBERS = 10;
const SPACES_PER_ORGANIZATION = 10;
const COMMENTS_PER_SPACE = 2;
/** Requests in flight while seeding. */
const SEED_CONCURRENCY = 8;

/** Total requests/s (reads and writes) over the framework floor's at the same connections. */
const FLOOR_RATIO_TARGET = 0.4;
const WRITE_P99_TARGET_MS = 50;
const READ_P99_TARGET_MS = 20;
const LAG_P99_TARGET_SECONDS = 0.05;
const CACHE_HIT_RATIO_TARGET = 0.8;

export interface VerdictRow {
  name: string;
  result: LoadResult;
  verdicts: { ok: boolean; text: string }[];
}

interface Space {
  id: string;
  organizationId: string;
  pages: { id: string; path: string }[];
}

interface Seeded {
  organizationIds: string[];
  spaces: Space[];
}

/** Runs `task` over `items`, `SEED_CONCURRENCY` at a time. */
async function eachConcurrently<T>(items: T[], task: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await task(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(SEED_CONCURRENCY, items.length) }, worker));
}

async function seed(baseUrl: string, adminToken: string, token: string, runId: string): Promise<Seeded> {
  const post = poster(baseUrl, token);
  const organizationIds: string[] = new Array(ORGANIZATIONS);
  const invites: string[] = new Array(ORGANIZATIONS);
  await eachConcurrently(organizationIds, async (_, o) => {
    const id = stringField(await post('/v1/orgs', { title: `Mixed org ${runId} ${o}` }), 'id', 'POST /v1/orgs');
    await expectStatus(200, call('PATCH', `${baseUrl}/v1/orgs/${id}`, { token, body: { inviteLinks: true } }), 'PATCH organization');
    invites[o] = stringField(await post(`/v1/orgs/${id}/link-invites`, { role: 'read' }), 'id', 'link invite');
    organizationIds[o] = id;
  });
  const members: string[] = new Array(MEMBERS);
  await eachConcurrently(members, async (_, m) => {
    const user = await post(
      '/v1/admin/users',
      { email: `mixed-member-${m}-${runId}@example.com`, displayName: `Member ${m}` },
      201,
      adminToken,
    );
    members[m] = stringField(user, 'token', 'user');
  });
  const joins = organizationIds.flatMap((id, o) => members.map((member) => ({ path: `/v1/orgs/${id}/invites/${invites[o]}`, member })));
  await eachConcurrently(joins, async ({ path, member }) => void (await post(path, undefined, 200, member)));

  const spaces: Space[] = [];
  const wanted = organizationIds.flatMap((organizationId) =>
    Array.from({ length: SPACES_PER_ORGANIZATION }, (_, s) => ({ organizationId, s })),
  );
  await eachConcurrently(wanted, async ({ organizationId, s }) => {
    const id = stringField(await post(`/v1/orgs/${organizationId}/spaces`, { title: `Space ${s}` }), 'id', 'space');
    const written = await post(
      `/v1/spaces/${id}/content`,
      {
        changes: [
          {
            operation: 'insert_page',
            title: 'Overview',
            document: { markdown: '## Overview\n\nSee the [guide](./guide.md).' },
            ref: 'overview',
          },
          {
            operation: 'insert_page',
            title: 'Guide',
            document: { markdown: 'Run `npm install` with **care**.' },
            ref: 'guide',
            into: 'overview',
          },
        ],
      },
      200,
    );
    const pages = (written.changes as { page: { id: string; path: string } }[]).map(({ page }) => ({
      id: String(page.id),
      path: String(page.path),
    }));
    for (let c = 0; c < COMMENTS_PER_SPACE; c++)
      await post(`/v1/spaces/${id}/comments`, { page: pages[0].id, body: { markdown: `Comment ${c}` } });
    spaces.push({ id, organizationId, pages });
  });
  return { organizationIds, spaces };
}

/** What a connection has in flight: `read` or `write`, and which read or write. */
type Kinds = readonly ['read' | 'write', string];

/**
 * The requests of one connection: a single autocannon request whose `setupRequest` picks, per
 * request, a read or a write and its resource, and records its kinds in `kinds[connection]`.
 */
function connectionRequests(
  seeded: Seeded,
  token: string,
  writeShare: number,
  connection: number,
  kinds: Kinds[],
  runId: string,
): autocannon.Request[] {
  const random = seededRandom(connection + 1);
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)];
  const auth = { authorization: `Bearer ${token}` };
  const json = { ...auth, 'content-type': 'application/json' };
  let sequence = 0;
  const title = (what: string) => `${what} ${runId} c${connection} #${++sequence}`;
  const read = (): [string, autocannon.Request] => {
    const space = pick(seeded.spaces);
    switch (Math.floor(random() * 5)) {
      case 0:
        return ['organization', { method: 'GET', path: `/v1/orgs/${space.organizationId}`, headers: auth }];
      case 1:
        return ['member list', { method: 'GET', path: `/v1/orgs/${space.organizationId}/members`, headers: auth }];
      case 2:
        return ['space', { method: 'GET', path: `/v1/spaces/${space.id}`, headers: auth }];
      case 3:
        return ['page by path', { method: 'GET', path: `/v1/spaces/${space.id}/content/path/${pick(space.pages).path}`, headers: auth }];
      default:
        return ['comment list', { method: 'GET', path: `/v1/spaces/${space.id}/comments`, headers: auth }];
    }
  };
  const write = (): [string, autocannon.Request] => {
    const space = pick(seeded.spaces);
    const roll = random();
    if (roll < 0.25)
      return [
        'organization title',
        { method: 'PATCH', path: `/v1/orgs/${space.organizationId}`, headers: json, body: JSON.stringify({ title: title('Org') }) },
      ];
    if (roll < 0.5)
      return [
        'space title',
        { method: 'PATCH', path: `/v1/spaces/${space.id}`, headers: json, body: JSON.stringify({ title: title('Space') }) },
      ];
    if (roll < 0.8) {
      const changes = [{ operation: 'update_page', page: pick(space.pages).id, title: title('Page') }];
      return ['page title', { method: 'POST', path: `/v1/spaces/${space.id}/content`, headers: json, body: JSON.stringify({ changes }) }];
    }
    const comment = { page: pick(space.pages).id, body: { markdown: title('Comment') } };
    return ['new comment', { method: 'POST', path: `/v1/spaces/${space.id}/comments`, headers: json, body: JSON.stringify(comment) }];
  };
  return [
    {
      setupRequest: (request) => {
        const isWrite = random() < writeShare;
        const [which, chosen] = isWrite ? write() : read();
        kinds[connection] = [isWrite ? 'write' : 'read', which];
        return { ...request, ...chosen };
      },
    },
  ];
}

/** The counters and histogram buckets of `/metrics` this part reads, by series (name and labels). */
async function scrape(baseUrl: string): Promise<Map<string, number>> {
  const reply = await expectStatus(200, call('GET', `${baseUrl}/metrics`), 'GET /metrics');
  const series = new Map<string, number>();
  for (const line of String(reply.body).split('\n')) {
    const match =
      /^(projection_apply_lag_seconds_(?:bucket|count)|read_your_writes_timeouts_total|http_response_cache_lookups|http_requests_total)(\{[^}]*\})? (\S+)$/.exec(
        line,
      );
    if (match) series.set(match[1] + (match[2] ?? ''), Number(match[3]));
  }
  return series;
}

/**
 * The bound (seconds) of the first lag bucket holding `share` of the events applied between two
 * scrapes (Infinity past the last bound); null without events.
 */
function lagBound(before: Map<string, number>, after: Map<string, number>, share: number): { bound: number | null; events: number } {
  const delta = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
  const events = delta('projection_apply_lag_seconds_count');
  if (events === 0) return { bound: null, events };
  const buckets = [...after.keys()]
    .map((key) => ({ key, le: /le="([^"]+)"/.exec(key)?.[1] }))
    .filter(
      (bucket): bucket is { key: string; le: string } =>
        bucket.key.startsWith('projection_apply_lag_seconds_bucket') && bucket.le !== undefined,
    )
    .map(({ key, le }) => ({ le: le === '+Inf' ? Infinity : Number(le), count: delta(key) }))
    .sort((a, b) => a.le - b.le);
  return { bound: buckets.find((bucket) => bucket.count >= share * events)?.le ?? Infinity, events };
}

/**
 * Reads answered by the response cache, over every GET of the API (warm-up included on both
 * sides): `http_response_cache_lookups` (hits, misses) and `http_requests_total` of GETs under /v1.
 */
function cacheFigures(
  before: Map<string, number>,
  after: Map<string, number>,
): { hits: number; misses: number; reads: number; ratio: number | null } {
  const delta = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
  const hits = delta('http_response_cache_lookups{outcome="hit"}');
  const misses = delta('http_response_cache_lookups{outcome="miss"}');
  let reads = 0;
  for (const key of after.keys())
    if (key.startsWith('http_requests_total{') && key.includes('method="GET"') && key.includes('route="/v1')) reads += delta(key);
  return { hits, misses, reads, ratio: reads > 0 ? hits / reads : null };
}

const fixed = (n: number, digits = 1) => n.toFixed(digits);
const thousands = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * The framework floor under the mixed workload's connections: the smallest Nest application
 * answering the JSON of `organizationId` as the service serves it, measured while the service idles.
 */
async function frameworkFloor(service: ServiceProcess, token: string, organizationId: string): Promise<LoadResult> {
  const path = `/v1/orgs/${organizationId}`;
  const answer = await expectStatus(200, call('GET', `${service.baseUrl}${path}`, { token }), `GET ${path}`);
  const reference = await startNestReference(answer.body);
  try {
    return await load({ url: `${reference.baseUrl}${path}`, connections: CONNECTIONS }, FLOOR_SECONDS, FLOOR_WARMUP_SECONDS);
  } finally {
    await reference.stop();
  }
}

/** Seeds, runs the mixed load and the CPU runs; the table's rows (with verdicts) and the lines to print after it. */
export async function runMixed(service: ServiceProcess, token: string, runId: string): Promise<{ rows: VerdictRow[]; notes: string[] }> {
  if (WRITE_SHARE >= 1) throw new Error(`BENCH_MIXED_WRITE_SHARE must be below 1, got ${WRITE_SHARE}`);
  const started = Date.now();
  process.stdout.write('seeding the mixed workload through the API … ');
  const seeded = await seed(service.baseUrl, service.adminToken, token, runId);
  const pages = seeded.spaces.reduce((n, space) => n + space.pages.length, 0);
  console.log(
    `${seeded.organizationIds.length} organizations, ${MEMBERS} members each, ${seeded.spaces.length} spaces, ${pages} pages in ${fixed((Date.now() - started) / 1000)} s`,
  );

  const options = (writeShare: number) => {
    const kinds: Kinds[] = [];
    return {
      url: service.baseUrl,
      connections: CONNECTIONS,
      requestsFor: (connection: number) => connectionRequests(seeded, token, writeShare, connection, kinds, runId),
      kindOf: (connection: number) => kinds[connection],
    };
  };

  process.stdout.write(`running: mixed workload, ${CONNECTIONS} connections, ${fixed(WRITE_SHARE * 100, 0)}% writes, ${SECONDS} s … `);
  const before = await scrape(service.baseUrl);
  const cpuBefore = cpuSecondsOf(service.pid);
  const mixed = await load(options(WRITE_SHARE), SECONDS, WARMUP_SECONDS);
  const cpuMixed = cpuSecondsOf(service.pid);
  const after = await scrape(service.baseUrl);
  const reads = mixed.byKind?.read;
  const writes = mixed.byKind?.write;
  if (!reads || !writes) throw new Error('the mixed run answered no reads or no writes');
  console.log(`${thousands(reads.requestsPerSecond)} reads/s, ${thousands(writes.requestsPerSecond)} writes/s`);

  // CPU per request, each kind alone, without a warm-up: the CPU is read around the run itself.
  process.stdout.write(`running: reads only, then writes only, ${CPU_SECONDS} s each, for the CPU per request … `);
  const cpuPerRequest = async (writeShare: number): Promise<{ result: LoadResult; cpu: number | null }> => {
    const cpuStart = cpuSecondsOf(service.pid);
    const result = await load(writeShare === 0 ? { ...options(0), kindOf: undefined } : options(writeShare), CPU_SECONDS, 0);
    const cpuEnd = cpuSecondsOf(service.pid);
    return { result, cpu: cpuStart === null || cpuEnd === null ? null : (cpuEnd - cpuStart) / result.total };
  };
  const readsOnly = await cpuPerRequest(0);
  // Every request a write: a share of 1 exactly, which `random() < 1` always is.
  const writesOnly = await cpuPerRequest(1);
  console.log('done');

  process.stdout.write(
    `running: the framework floor, ${CONNECTIONS} connections, ${FLOOR_SECONDS} s, for this machine's ceiling at this mix … `,
  );
  const floor = await frameworkFloor(service, token, seeded.organizationIds[0]);
  const ceiling = floor.requestsPerSecond * WRITE_SHARE;
  const floorRatio = (reads.requestsPerSecond + writes.requestsPerSecond) / floor.requestsPerSecond;
  console.log(`${thousands(floor.requestsPerSecond)} req/s\n`);

  const invalid = (result: LoadResult, errors: number) =>
    result.non2xx + errors > 0 ? [{ ok: false, text: `INVALID (${result.non2xx} non-2xx, ${errors} errors/timeouts)` }] : [];
  const delta = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
  const timeouts = delta('read_your_writes_timeouts_total');
  const lag = lagBound(before, after, 0.99);
  const lagText = (bound: number | null) =>
    bound === null ? 'no events' : bound === Infinity ? '> 5 s' : `≤ ${fixed(bound * 1000, 1)} ms`;
  const lagOk = lag.bound !== null && lag.bound <= LAG_P99_TARGET_SECONDS;
  const cache = cacheFigures(before, after);
  const cacheOk = cache.ratio !== null && cache.ratio >= CACHE_HIT_RATIO_TARGET;
  const verdict = (ok: boolean, text: string) => ({ ok, text: `${ok ? 'met' : 'MISSED'} (${text})` });

  const rows: VerdictRow[] = [
    {
      name: `mixed: reads (${fixed((1 - WRITE_SHARE) * 100, 0)}%), ${CONNECTIONS} conn`,
      result: reads,
      verdicts: [
        verdict(reads.p99 < READ_P99_TARGET_MS, `p99 < ${READ_P99_TARGET_MS} ms`),
        verdict(cacheOk, `response cache hit ratio ${cache.ratio === null ? 'n/a' : fixed(cache.ratio, 2)} ≥ ${CACHE_HIT_RATIO_TARGET}`),
        ...invalid(reads, mixed.errors + mixed.warmupFailures),
      ],
    },
    {
      name: `mixed: writes (${fixed(WRITE_SHARE * 100, 0)}%), ${CONNECTIONS} conn`,
      result: writes,
      verdicts: [
        verdict(floorRatio >= FLOOR_RATIO_TARGET, `reads + writes ${fixed(floorRatio, 2)} of the floor ≥ ${FLOOR_RATIO_TARGET}`),
        verdict(writes.p99 < WRITE_P99_TARGET_MS, `p99 < ${WRITE_P99_TARGET_MS} ms`),
        verdict(lagOk, `projection lag p99 < ${LAG_P99_TARGET_SECONDS * 1000} ms`),
        { ok: timeouts === 0, text: timeouts === 0 ? 'no read-your-writes time-out' : `FAILED: ${timeouts} read-your-writes time-out(s)` },
        ...invalid(writes, 0),
      ],
    },
    {
      name: `reads only, ${CONNECTIONS} conn (CPU per request)`,
      result: readsOnly.result,
      verdicts: [{ ok: true, text: 'diagnostic, no target' }, ...invalid(readsOnly.result, readsOnly.result.errors)],
    },
    {
      name: `writes only, ${CONNECTIONS} conn (CPU per request)`,
      result: writesOnly.result,
      verdicts: [{ ok: true, text: 'diagnostic, no target' }, ...invalid(writesOnly.result, writesOnly.result.errors)],
    },
    {
      name: `bare Nest GET, ${CONNECTIONS} conn (framework floor)`,
      result: floor,
      verdicts: [{ ok: true, text: 'diagnostic: the most requests/s any Nest route reaches' }, ...invalid(floor, floor.errors)],
    },
  ];

  const line = (ok: boolean, text: string) => `  ${ok ? 'PASS' : 'FAIL'}  ${text}`;
  const ms = (seconds: number | null) => (seconds === null ? 'n/a' : `${fixed(seconds * 1000, 3)} ms`);
  const cpuMixedSeconds = cpuBefore === null || cpuMixed === null ? null : cpuMixed - cpuBefore;
  const wall = SECONDS + WARMUP_SECONDS;
  const notes = [
    `mixed workload (${seeded.organizationIds.length} organizations, ${seeded.spaces.length} spaces, ${pages} pages; ${CONNECTIONS} connections; ${fixed(WRITE_SHARE * 100, 0)}% writes; ${SECONDS} s after ${WARMUP_SECONDS} s warm-up):`,
    line(
      floorRatio >= FLOOR_RATIO_TARGET && writes.non2xx === 0,
      `${thousands(reads.requestsPerSecond)} reads/s + ${thousands(writes.requestsPerSecond)} writes/s = ${fixed(floorRatio, 2)} of the framework floor's ` +
        `${thousands(floor.requestsPerSecond)} req/s at ${CONNECTIONS} connections (target ≥ ${FLOOR_RATIO_TARGET})`,
    ),
    line(
      writes.p99 < WRITE_P99_TARGET_MS,
      `write p99 ${fixed(writes.p99, 2)} ms, p50 ${fixed(writes.p50, 2)} ms (target p99 < ${WRITE_P99_TARGET_MS} ms)`,
    ),
    line(
      reads.p99 < READ_P99_TARGET_MS && reads.non2xx === 0,
      `read p99 ${fixed(reads.p99, 2)} ms, p50 ${fixed(reads.p50, 2)} ms (target p99 < ${READ_P99_TARGET_MS} ms)`,
    ),
    line(
      lagOk,
      `projection lag p99 ${lagText(lag.bound)} (p50 ${lagText(lagBound(before, after, 0.5).bound)}) over ${thousands(lag.events)} events (target < ${LAG_P99_TARGET_SECONDS * 1000} ms; projection_apply_lag_seconds: projections committed − event recorded)`,
    ),
    line(timeouts === 0, `read-your-writes time-outs: ${timeouts}`),
    line(
      cacheOk,
      `response cache hit ratio of the reads ${cache.ratio === null ? 'n/a' : fixed(cache.ratio, 2)} (target ≥ ${CACHE_HIT_RATIO_TARGET}): ${thousands(cache.hits)} hits of ${thousands(cache.reads)} GETs, ` +
        `${thousands(cache.misses)} misses on @CachedRead routes (warm-up included; http_response_cache_lookups, http_requests_total)`,
    ),
    line(
      mixed.non2xx + mixed.errors + mixed.warmupFailures === 0,
      `failures: ${mixed.non2xx} non-2xx, ${mixed.errors} connection errors/timeouts, ${mixed.warmupFailures} during warm-up; status codes ${JSON.stringify(mixed.statusCodes)}`,
    ),
    `  service CPU: ${cpuMixedSeconds === null ? 'n/a' : `${fixed(cpuMixedSeconds, 1)} s over ${wall} s (${fixed(cpuMixedSeconds / wall, 2)} cores)`}; ` +
      `per request alone: read ${ms(readsOnly.cpu)} (${thousands(readsOnly.result.requestsPerSecond)} reads/s), write ${ms(writesOnly.cpu)} (${thousands(writesOnly.result.requestsPerSecond)} writes/s, projection and LMDB commit included)`,
    `  this machine's ceiling at this mix: the framework floor answers ${thousands(floor.requestsPerSecond)} req/s at ${CONNECTIONS} connections, so at ${fixed(WRITE_SHARE * 100, 0)}% writes ` +
      `no Nest service reaches more than ${thousands(ceiling)} writes/s here, even with every request as cheap as that constant GET`,
  ];
  const byWhich = (title: string, result: LoadResult) => [
    `  ${title}:`,
    ...Object.entries(result.byKind ?? {})
      .filter(([kind]) => kind !== 'read' && kind !== 'write')
      .map(
        ([kind, figures]) =>
          `    ${kind.padEnd(20)} ${thousands(figures.requestsPerSecond).padStart(6)}/s  p50 ${fixed(figures.p50, 2).padStart(7)} ms  p99 ${fixed(figures.p99, 2).padStart(8)} ms  non-2xx ${figures.non2xx}`,
      ),
  ];
  notes.push(...byWhich('mixed, by request', mixed), ...byWhich('writes only, by request', writesOnly.result));
  return { rows, notes };
}
