/**
 * `npm run bench:lists`: what one page of a list costs in the embedded read store as the list grows.
 *
 * One `spaces` collection shaped like the spaces read model (index `{ organizationId, parentKey,
 * position }`), one organization holding SMALL and then 10x as many live spaces among other
 * organizations' spaces, a tenth of them deleted. Measured per size, on the committed store:
 *
 * - first page: `find({ organizationId, deletedAt: { $exists: false } }, { sort: { parentKey, position }, limit: 50 })`
 *   with its count (what `GET /orgs/{id}/spaces` asks);
 * - next page: the same with `after` = a cursor from the middle of the list (its count rides in the cursor);
 * - descending page: `find({ organizationId }, { sort: { createdAt: -1 }, limit: 50 })` on an index
 *   `{ organizationId, createdAt }` (audit-style lists, newest first) with its count;
 * - count alone: `count({ organizationId, deletedAt: { $exists: false } })`.
 *
 * Target: a page at 10x the documents costs at most 1.5x the time (cost per request independent of
 * how much there is). A raw `Map.get` of 50 ids is printed as the machine's reference.
 * `BENCH_LIST_SMALL` (default 2,000) and `BENCH_LIST_ROUNDS` tune the run.
 */
import { MemoryReadStore } from '#read-store/memory/memory-read-store';
import type { Doc, Filter, FindOptions, ReadStore } from '#read-store/read-store.port';
import { positiveInteger } from './support/settings';

const SMALL = positiveInteger('BENCH_LIST_SMALL', 2_000);
const ROUNDS = positiveInteger('BENCH_LIST_ROUNDS', 300);
const TARGET_RATIO = 1.5;

interface SpaceDoc extends Doc {
  organizationId: string;
  parentKey: string;
  position: string;
  createdAt: string;
  title: string;
  visibility: string;
  deletedAt?: string;
}

function space(org: string, i: number): SpaceDoc {
  const doc: SpaceDoc = {
    _id: `${org}-space-${String(i).padStart(7, '0')}`,
    organizationId: org,
    parentKey: i % 5 === 0 ? '' : `collection-${i % 40}`,
    position: `a${String((i * 7919) % 1_000_003).padStart(7, '0')}`,
    createdAt: new Date(1_700_000_000_000 + i * 60_000).toISOString(),
    title: `Space ${i} of ${org}`,
    visibility: i % 3 === 0 ? 'public' : 'private',
  };
  if (i % 10 === 9) doc.deletedAt = doc.createdAt;
  return doc;
}

async function fill(store: ReadStore, target: number): Promise<void> {
  await store.ensureIndex('spaces', { fields: { organizationId: 1, parentKey: 1, position: 1 } });
  await store.ensureIndex('spaces', { fields: { organizationId: 1, createdAt: 1 } });
  const orgs = ['org-target', 'org-a', 'org-b', 'org-c'];
  for (let start = 0; start < target; start += 1000) {
    await store.transaction(async (tx) => {
      const spaces = tx.collection<SpaceDoc>('spaces');
      for (let i = start; i < Math.min(target, start + 1000); i++) for (const org of orgs) await spaces.put(space(org, i));
    });
  }
}

/** Median microseconds of `run` over ROUNDS calls (after a warm-up). */
async function time(run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 20; i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = process.hrtime.bigint();
    await run();
    samples.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

interface Measures {
  first: number;
  next: number;
  descending: number;
  count: number;
  reference: number;
}

async function measure(size: number): Promise<Measures> {
  const store = new MemoryReadStore();
  await fill(store, size);
  const spaces = store.collection<SpaceDoc>('spaces');
  const filter: Filter = { organizationId: 'org-target', deletedAt: { $exists: false } };
  const options: FindOptions = { sort: { parentKey: 1, position: 1 }, limit: 50 };
  // A cursor from the middle of the list: walk pages of 1,000 to about half.
  let middle: string | undefined;
  for (let seen = 0; seen < (size * 0.9) / 2; seen += 1000) {
    middle = (await spaces.find(filter, { ...options, limit: 1000, after: middle })).next;
  }
  const ids = Array.from({ length: 50 }, (_, i) => space('org-target', i * 3)._id);
  const raw = (store as unknown as { state(name: string): { docs: Map<string, Doc> } }).state('spaces').docs;
  const result: Measures = {
    first: await time(() => spaces.find(filter, options)),
    next: await time(() => spaces.find(filter, { ...options, after: middle })),
    descending: await time(() => spaces.find({ organizationId: 'org-target' }, { sort: { createdAt: -1 }, limit: 50 })),
    count: await time(() => spaces.count(filter)),
    reference: await time(async () => ids.map((id) => structuredClone(raw.get(id)))),
  };
  const check = await spaces.find(filter, options);
  if (check.items.length !== 50 || check.count !== size - Math.floor((size + 0) / 10)) {
    throw new Error(`unexpected page: ${check.items.length} items, count ${check.count}`);
  }
  await store.close();
  return result;
}

function us(n: number): string {
  return `${n.toFixed(0).padStart(7)} µs`;
}

async function main(): Promise<void> {
  const large = SMALL * 10;
  const small = await measure(SMALL);
  const big = await measure(large);
  console.log(
    `\nbench:lists  (node ${process.version}; median of ${ROUNDS}; one organization of ${SMALL.toLocaleString('en-US')} then ${large.toLocaleString('en-US')} spaces among 3 others)\n`,
  );
  console.log(`${'measure'.padEnd(44)}  ${'small'.padStart(10)}  ${'10x'.padStart(10)}  ratio  verdict (≤ ${TARGET_RATIO}x)`);
  const rows: Array<[string, keyof Measures]> = [
    ['first page of 50, with count', 'first'],
    ['page of 50 after a cursor mid-list', 'next'],
    ['first page of 50, newest first, with count', 'descending'],
    ['count alone', 'count'],
    ['reference: Map.get + clone of 50 documents', 'reference'],
  ];
  let missed = false;
  for (const [name, key] of rows) {
    const ratio = big[key] / small[key];
    const verdict = key === 'reference' ? '' : ratio <= TARGET_RATIO ? 'met' : 'MISSED';
    if (verdict === 'MISSED') missed = true;
    console.log(`${name.padEnd(44)}  ${us(small[key])}  ${us(big[key])}  ${ratio.toFixed(2).padStart(5)}  ${verdict}`);
  }
  console.log(`\n${missed ? 'MISSED' : 'met'}: a page of a list at 10x the documents costs within ${TARGET_RATIO}x`);
  if (missed) process.exitCode = 1;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
