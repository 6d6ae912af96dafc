/**
 * `npm run bench:merge`: merging change requests end to end (docs/content.md, Change requests), on
 * the embedded stores, against the built service in a child process (bench/support/processes.ts).
 *
 * For each space size in BENCH_MERGE_SIZES (1,000 and 10,000 pages by default: 10 top-level pages,
 * each with pages below them), the space is generated through the batch write, then BENCH_MERGES
 * rounds run, each:
 *
 * 1. a change request is created and BENCH_MERGE_PAGES (100) random pages get new bodies on it
 *    (batches of 50);
 * 2. main moves on meanwhile: 10 other pages are edited directly, so every merge is a real
 *    three-way merge (not the request's tree taken as it is);
 * 3. `POST …/merge` is timed (the whole request: the merge, the commit to main, the request's
 *    `ChangeRequestMerged`, read-your-writes).
 *
 * Targets: merge p99 < 200 ms on the largest size, and merge time growing with the pages changed,
 * not the space: p50 at the largest size within 2x of p50 at the smallest. Only errors exit
 * non-zero; a missed target is reported as MISS. Environment: BENCH_MERGE_SIZES ("1000,10000"),
 * BENCH_MERGES (30), BENCH_MERGE_PAGES (100), BENCH_SEED (1), BENCH_SERVICE_NODE_OPTIONS (extra node flags
 * for the service, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import { join } from 'node:path';
import { call, expectStatus, stringField } from './support/http';
import { startService, type ServiceProcess } from './support/processes';
import { positiveInteger, seededRandom } from './support/settings';

const SIZES = (process.env.BENCH_MERGE_SIZES ?? '1000,10000').split(',').map((size) => Number(size.trim()));
const MERGES = positiveInteger('BENCH_MERGES', 30);
const CHANGED = positiveInteger('BENCH_MERGE_PAGES', 100);
const SEED = positiveInteger('BENCH_SEED', 1);
const MAIN_JS = join(__dirname, '../apps/api/src/main.js');
const TOP_PAGES = 10;
const BATCH = 50;
const MAIN_EDITS = 10;

const body = (random: () => number, words: number) => {
  const vocabulary = [
    'merge',
    'page',
    'space',
    'request',
    'review',
    'the',
    'of',
    'and',
    'content',
    'tree',
    'block',
    'revision',
    'main',
    'change',
    'edit',
  ];
  const paragraphs: string[] = [];
  for (let p = 0; p < 3; p += 1)
    paragraphs.push(
      Array.from({ length: Math.ceil(words / 3) }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(' ') + '.',
    );
  return paragraphs.join('\n\n');
};

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

async function generate(
  base: string,
  token: string,
  organizationId: string,
  pages: number,
  random: () => number,
): Promise<{ spaceId: string; leaves: string[] }> {
  const spaceId = stringField(
    (
      await expectStatus(
        201,
        call('POST', `${base}/v1/orgs/${organizationId}/spaces`, { token, body: { title: `Merge ${pages}` } }),
        'creating a space',
      )
    ).body,
    'id',
    'space',
  );
  const top = await expectStatus(
    200,
    call('POST', `${base}/v1/spaces/${spaceId}/content`, {
      token,
      body: {
        changes: Array.from({ length: TOP_PAGES }, (_, i) => ({
          operation: 'insert_page',
          title: `Part ${i}`,
          document: { markdown: body(random, 30) },
        })),
      },
    }),
    'top pages',
  );
  const parents = (top.body as { changes: Array<{ page: { id: string } }> }).changes.map((change) => change.page.id);
  const leaves: string[] = [];
  const perParent = Math.ceil((pages - TOP_PAGES) / TOP_PAGES);
  for (const parent of parents) {
    for (let done = 0; done < perParent; done += BATCH) {
      const count = Math.min(BATCH, perParent - done);
      const changes = Array.from({ length: count }, (_, i) => ({
        operation: 'insert_page',
        title: `Page ${done + i}`,
        into: parent,
        document: { markdown: body(random, 120) },
      }));
      const written = await expectStatus(
        200,
        call('POST', `${base}/v1/spaces/${spaceId}/content`, { token, body: { changes }, timeoutMs: 120_000 }),
        'generating pages',
      );
      leaves.push(...(written.body as { changes: Array<{ page: { id: string } }> }).changes.map((change) => change.page.id));
    }
  }
  return { spaceId, leaves };
}

function pick(random: () => number, from: readonly string[], count: number, except: ReadonlySet<string> = new Set()): string[] {
  const chosen = new Set<string>();
  while (chosen.size < count) {
    const id = from[Math.floor(random() * from.length)];
    if (!except.has(id)) chosen.add(id);
  }
  return [...chosen];
}

async function measure(service: ServiceProcess, token: string, organizationId: string, pages: number): Promise<number[]> {
  const base = service.baseUrl;
  const random = seededRandom(SEED + pages);
  const started = performance.now();
  const { spaceId, leaves } = await generate(base, token, organizationId, pages, random);
  console.log(`  ${pages} pages generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const times: number[] = [];
  for (let round = 0; round < MERGES + 2; round += 1) {
    const request = stringField(
      (
        await expectStatus(
          201,
          call('POST', `${base}/v1/spaces/${spaceId}/change-requests`, { token, body: { subject: `Round ${round}` } }),
          'creating a change request',
        )
      ).body,
      'id',
      'change request',
    );
    const changed = pick(random, leaves, CHANGED);
    for (let done = 0; done < changed.length; done += BATCH) {
      const changes = changed
        .slice(done, done + BATCH)
        .map((page) => ({ operation: 'update_page', page, document: { markdown: body(random, 120) } }));
      await expectStatus(
        200,
        call('POST', `${base}/v1/spaces/${spaceId}/change-requests/${request}/content`, { token, body: { changes } }),
        'editing the change request',
      );
    }
    const onMain = pick(random, leaves, MAIN_EDITS, new Set(changed)).map((page) => ({
      operation: 'update_page',
      page,
      document: { markdown: body(random, 120) },
    }));
    await expectStatus(200, call('POST', `${base}/v1/spaces/${spaceId}/content`, { token, body: { changes: onMain } }), 'editing main');
    const merged = await expectStatus(
      200,
      call('POST', `${base}/v1/spaces/${spaceId}/change-requests/${request}/merge`, { token }),
      'merging',
    );
    // The first two rounds warm the process up.
    if (round >= 2) times.push(merged.ms);
  }
  return times;
}

async function main(): Promise<void> {
  const service = await startService({
    mainJs: MAIN_JS,
    readyTimeoutMs: 120_000,
    nodeArgs: (process.env.BENCH_SERVICE_NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean),
  });
  const stop = () => void service.stop().then(() => process.exit(130));
  process.once('SIGINT', stop).once('SIGTERM', stop);
  try {
    const base = service.baseUrl;
    const user = await expectStatus(
      201,
      call('POST', `${base}/v1/admin/users`, {
        token: service.adminToken,
        body: { email: `merge-bench-${Date.now()}@example.com`, displayName: 'Bench' },
      }),
      'creating a user',
    );
    const token = stringField(user.body, 'token', 'user');
    const organizationId = stringField(
      (await expectStatus(201, call('POST', `${base}/v1/orgs`, { token, body: { title: 'Merge bench' } }), 'creating an organization'))
        .body,
      'id',
      'organization',
    );
    console.log(
      `merge benchmark: ${MERGES} merges of ${CHANGED} changed pages (main moved by ${MAIN_EDITS} other pages each time), sizes ${SIZES.join(', ')}`,
    );
    const results: Array<{ pages: number; p50: number; p99: number }> = [];
    for (const pages of SIZES) {
      const times = await measure(service, token, organizationId, pages);
      results.push({ pages, p50: percentile(times, 50), p99: percentile(times, 99) });
    }
    console.log('\n| space pages | merge p50 | merge p99 |\n|---|---|---|');
    for (const result of results) console.log(`| ${result.pages} | ${result.p50.toFixed(1)} ms | ${result.p99.toFixed(1)} ms |`);
    const largest = results[results.length - 1];
    const smallest = results[0];
    const ratio = largest.p50 / smallest.p50;
    console.log(`\ntarget merge p99 < 200 ms at ${largest.pages} pages: ${largest.p99.toFixed(1)} ms ${largest.p99 < 200 ? 'OK' : 'MISS'}`);
    console.log(
      `target p50 at ${largest.pages} pages within 2x of ${smallest.pages} pages: ${ratio.toFixed(2)}x ${ratio <= 2 ? 'OK' : 'MISS'}`,
    );
  } finally {
    await service.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
