/**
 * `npm run bench:heavy`: one signed-in user's heavy input must not stall the service for others.
 * The built service runs as a user runs it (bench/support/processes.ts) with
 * IMPORT_ALLOW_PRIVATE_NETWORKS=true (its fetches go to a file server on loopback).
 *
 * 1. Each heavy case of bench/support/heavy-inputs.ts is sent while another client asks
 *    `GET /health` one request after another: the worst and p99 wait of `/health` during the case.
 *    Target: worst under 100 ms. The cases' own answers must be among their accepted statuses.
 * 2. Memory (the floor of the service's heap in use, see `repeat`): BENCH_PATCHES (1,000) installation PATCHes with a configuration checked against a
 *    300-member schema, BENCH_IMPORTS (100) markdown imports and BENCH_WRITES (100) batch writes
 *    rewriting the same ten markdown pages (new pages would grow the read models, which embedded
 *    mode keeps in memory: data, not a leak). Target: the floor grows less than 64 MiB from the
 *    first tenth of the runs to the last (flat).
 *
 * BENCH_HEAVY_CASES (comma-separated parts of case names) runs only those cases; BENCH_SERVICE_NODE_OPTIONS
 * passes node flags to the service (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 *
 * Exits non-zero when a case answers an unexpected status or a request fails; a missed target is
 * reported as MISS and also exits non-zero.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, expectStatus, stringField } from './support/http';
import {
  fileServer,
  HEAVY_CASES,
  markdownList,
  newSpace,
  publishIntegration,
  wideConfigurationSchema,
  type Answer,
  type HeavyContext,
  type Send,
} from './support/heavy-inputs';
import { startService } from './support/processes';
import { positiveInteger } from './support/settings';

const MAIN_JS = join(__dirname, '../apps/api/src/main.js');
const HEALTH_TARGET_MS = 100;
const GROWTH_TARGET_MIB = 64;
const PATCHES = positiveInteger('BENCH_PATCHES', 1000);
const IMPORTS = positiveInteger('BENCH_IMPORTS', 100);
const WRITES = positiveInteger('BENCH_WRITES', 100);
/** Only the cases whose names contain one of these (comma-separated, case-insensitive); all when unset. */
const ONLY = (process.env.BENCH_HEAVY_CASES ?? '')
  .split(',')
  .map((part) => part.trim().toLowerCase())
  .filter(Boolean);

/** `GET /health` one after another until stopped: every wait, in ms. */
function watchHealth(baseUrl: string): { stop(): Promise<number[]> } {
  const waits: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const response = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(60_000) });
      await response.arrayBuffer();
      waits.push(performance.now() - started);
      if (response.status !== 200) throw new Error(`/health answered ${response.status} during a heavy case`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return waits;
    },
  };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
};

function residentMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
}

/** The service's V8 heap in use (its /metrics), in MiB. */
async function heapUsedMiB(baseUrl: string): Promise<number> {
  const metrics = await (await fetch(`${baseUrl}/metrics`)).text();
  return Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(metrics)?.[1] ?? NaN) / 1024 / 1024;
}

/**
 * Runs `once` `times` times. What the service retains is the floor of its heap in use (the lowest
 * value seen, which follows each collection) over the first tenth of the runs and over the last
 * tenth: a leak raises the floor with every run. Resident memory is shown beside it; it also holds
 * the stores' mapped files, which grow with the log, and what V8 keeps reserved.
 */
async function repeat(times: number, once: (i: number) => Promise<void>, service: { baseUrl: string; pid: number | undefined }) {
  const tenth = Math.max(1, Math.floor(times / 10));
  let firstFloor = Infinity;
  let lastFloor = Infinity;
  let residentAfterTenth = 0;
  for (let i = 0; i < times; i++) {
    await once(i);
    const heap = await heapUsedMiB(service.baseUrl);
    if (i < tenth) firstFloor = Math.min(firstFloor, heap);
    if (i >= times - tenth) lastFloor = Math.min(lastFloor, heap);
    if (i === tenth - 1) residentAfterTenth = residentMiB(service.pid);
  }
  return { firstFloor, lastFloor, residentAfterTenth, residentAfterAll: residentMiB(service.pid) };
}

async function main(): Promise<void> {
  const files = await fileServer();
  const service = await startService({
    mainJs: MAIN_JS,
    env: { IMPORT_ALLOW_PRIVATE_NETWORKS: 'true' },
    readyTimeoutMs: 120_000,
    nodeArgs: (process.env.BENCH_SERVICE_NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean),
  });
  const lines: string[] = [];
  let failed = false;
  try {
    const base = service.baseUrl;
    const send: Send = async (method, path, token, body) => {
      const reply = await call(method, `${base}${path}`, { token: token ?? undefined, body, timeoutMs: 300_000 });
      return { status: reply.status, body: reply.body };
    };
    const user = await expectStatus(
      201,
      call('POST', `${base}/v1/admin/users`, {
        token: service.adminToken,
        body: { email: `heavy-${Date.now()}@example.com`, displayName: 'Heavy' },
      }),
      'creating a user',
    );
    const token = stringField(user.body, 'token', 'user');
    const organizationId = stringField(
      (await expectStatus(201, call('POST', `${base}/v1/orgs`, { token, body: { title: 'Heavy input' } }), 'organization')).body,
      'id',
      'organization',
    );
    const context: HeavyContext = { send, token, organizationId, files: files.url };

    console.log(`heavy inputs: GET /health waits while each case runs (target: worst < ${HEALTH_TARGET_MS} ms)\n`);
    console.log(`${'case'.padEnd(56)} ${'answers'.padEnd(18)} ${'health p99'.padStart(10)} ${'worst'.padStart(9)}  verdict`);
    for (const heavy of HEAVY_CASES.filter(
      (candidate) => ONLY.length === 0 || ONLY.some((part) => candidate.name.toLowerCase().includes(part)),
    )) {
      const watch = watchHealth(base);
      const started = performance.now();
      let answers: Answer[] = [];
      try {
        answers = await heavy.run(context);
      } catch (error) {
        answers = [{ status: 0, body: (error as Error).message }];
      }
      const seconds = (performance.now() - started) / 1000;
      const waits = await watch.stop();
      const unexpected = answers.filter((answer) => !heavy.accepted.includes(answer.status));
      const worst = Math.max(...waits);
      const ok = worst < HEALTH_TARGET_MS && unexpected.length === 0;
      if (!ok) failed = true;
      const statuses = [...new Set(answers.map((answer) => answer.status))].join(',');
      console.log(
        `${heavy.name.padEnd(56)} ${`${statuses} in ${seconds.toFixed(1)} s`.padEnd(18)} ${percentile(waits, 99).toFixed(1).padStart(7)} ms ${worst.toFixed(1).padStart(6)} ms  ${ok ? 'PASS' : 'MISS'}`,
      );
      for (const answer of unexpected)
        lines.push(`  ${heavy.name}: unexpected ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
    }

    console.log(
      `\nmemory: the floor of the heap in use over the first and the last tenth of the runs (target: growth < ${GROWTH_TARGET_MIB} MiB), and resident memory\n`,
    );
    const name = await publishIntegration(context, { configurations: { account: wideConfigurationSchema(300) } });
    const installation = await send('POST', `/v1/integrations/${name}/installations`, token, { organization: organizationId });
    if (installation.status !== 201) throw new Error(`installing answered ${installation.status} ${JSON.stringify(installation.body)}`);
    const configuration = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`field${i}`, `value ${i}`]));
    const installationPath = `/v1/integrations/${name}/installations/${String(installation.body.id)}`;
    const importSpace = await newSpace(context, 'Imports');
    const writeSpace = await newSpace(context, 'Writes');
    // The same ten pages rewritten each time: what grows is then what the write path keeps, not the space's content.
    const inserted = await send('POST', `/v1/spaces/${writeSpace}/content`, token, {
      changes: Array.from({ length: 10 }, (_, i) => ({ operation: 'insert_page', title: `Page ${i}`, document: { markdown: 'first' } })),
    });
    if (inserted.status !== 200)
      throw new Error(`writing the pages answered ${inserted.status} ${JSON.stringify(inserted.body).slice(0, 300)}`);
    const pageIds: string[] = inserted.body.changes.map((change: { page: { id: string } }) => change.page.id);
    const list = markdownList(8 * 1024);
    const rewrite = (round: number) =>
      pageIds.map((page) => ({ operation: 'update_page', page, document: { markdown: `Round ${round}\n\n${list}` } }));
    const expectOk = (what: string) => async (answer: Promise<{ status: number; body: unknown }>) => {
      const { status, body } = await answer;
      if (status >= 300) throw new Error(`${what} answered ${status} ${JSON.stringify(body).slice(0, 300)}`);
    };
    const parts: [string, number, (i: number) => Promise<void>][] = [
      [
        `installation PATCH with a 300-member configuration`,
        PATCHES,
        (i) => expectOk('PATCH')(send('PATCH', installationPath, token, { configuration: { ...configuration, field0: `value ${i}` } })),
      ],
      [
        `markdown import`,
        IMPORTS,
        () =>
          expectOk('import')(
            send('POST', `/v1/spaces/${importSpace}/content/import`, token, { source: 'markdown', url: `${files.url}/page.md` }),
          ),
      ],
      [
        `batch write rewriting 10 markdown pages`,
        WRITES,
        (i) => expectOk('write')(send('POST', `/v1/spaces/${writeSpace}/content`, token, { changes: rewrite(i) })),
      ],
    ];
    for (const [what, times, once] of parts) {
      const { firstFloor, lastFloor, residentAfterTenth, residentAfterAll } = await repeat(times, once, service);
      const growth = lastFloor - firstFloor;
      const ok = growth < GROWTH_TARGET_MIB;
      if (!ok) failed = true;
      const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(0)}`;
      console.log(
        `${`${times} × ${what}`.padEnd(56)} heap ${firstFloor.toFixed(0).padStart(4)} → ${lastFloor.toFixed(0).padStart(4)} MiB (${signed(growth)})  ${ok ? 'PASS' : 'MISS'}` +
          `   resident ${residentAfterTenth.toFixed(0)} → ${residentAfterAll.toFixed(0)} MiB (${signed(residentAfterAll - residentAfterTenth)})`,
      );
    }
    for (const line of lines) console.log(line);
  } finally {
    await service.stop();
    await files.close();
  }
  console.log(failed ? '\nresult: target(s) MISSED or a case answered unexpectedly' : '\nresult: all targets met');
  if (failed) process.exitCode = 1;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
