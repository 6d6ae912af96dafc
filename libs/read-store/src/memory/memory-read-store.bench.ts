/**
 * Throughput of the memory read store under the projection runner's replay pattern: transactions
 * of 500 events, each event one `update(id, { $set, $inc }, { upsert: true })` (even events) or one
 * `get` + `put` of a read-model document (odd events), plus one checkpoint `put` per transaction.
 * Not a test: the bench harness imports `benchMemoryReadStore` (target ≥ 100,000 events/s).
 */
import type { Doc } from '../read-store.port';
import { MemoryReadStore } from './memory-read-store';

const EVENTS_PER_TRANSACTION = 500;
const PAGE_DOCUMENTS = 10_000;
const SPACE_DOCUMENTS = 1_000;

interface SpaceDoc extends Doc {
  title: string;
  organizationId: string;
  visibility: string;
  revision: number;
  updatedAt: string;
  urls: { app: string; published: string | null };
  permissions: { edit: boolean; admin: boolean };
  members: string[];
}

export async function benchMemoryReadStore(n: number): Promise<{ opsPerSecond: number }> {
  const store = new MemoryReadStore();
  await store.ensureIndex('pages', { fields: { spaceId: 1, path: 1 }, unique: true });
  const started = process.hrtime.bigint();
  let event = 0;
  while (event < n) {
    const end = Math.min(n, event + EVENTS_PER_TRANSACTION);
    const first = event;
    await store.transaction(async (tx) => {
      const pages = tx.collection('pages');
      const spaces = tx.collection<SpaceDoc>('spaces');
      for (let i = first; i < end; i++) {
        const occurredAt = new Date(1_700_000_000_000 + i * 1000).toISOString();
        if (i % 2 === 0) {
          const page = i % PAGE_DOCUMENTS;
          await pages.update(
            `page-${page}`,
            {
              $set: {
                title: `Page ${page} rev ${i}`,
                spaceId: `space-${page % SPACE_DOCUMENTS}`,
                path: `p-${page}`,
                updatedAt: occurredAt,
              },
              $inc: { revision: 1 },
            },
            { upsert: true },
          );
        } else {
          const id = `space-${i % SPACE_DOCUMENTS}`;
          const space = await spaces.get(id);
          await spaces.put({
            _id: id,
            title: `Space ${i}`,
            organizationId: 'org-1',
            visibility: space?.visibility ?? 'private',
            revision: (space?.revision ?? 0) + 1,
            updatedAt: occurredAt,
            urls: { app: `https://app.example.com/s/${id}`, published: null },
            permissions: { edit: true, admin: false },
            members: space?.members ?? ['user-1', 'user-2'],
          });
        }
      }
      await tx.collection('checkpoints').put({ _id: 'all-projections', position: end });
    });
    event = end;
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await store.close();
  return { opsPerSecond: Math.round(n / seconds) };
}
