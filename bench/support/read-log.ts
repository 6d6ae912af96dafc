import { LmdbEventStore } from '../../libs/event-store/src/lmdb/lmdb-event-store';

/**
 * Every event of the embedded log in `directory` read and decoded through the event store, in
 * pages, with nothing else done: the floor under any replay of it.
 */
export async function readWholeLog(directory: string): Promise<{ events: number; seconds: number }> {
  const store = LmdbEventStore.open(directory);
  try {
    const started = performance.now();
    let events = 0;
    let after: bigint | undefined;
    for (;;) {
      const page = await store.readAll({ after, maxCount: 4096 });
      if (page.length === 0) break;
      events += page.length;
      after = page[page.length - 1].position;
    }
    return { events, seconds: (performance.now() - started) / 1000 };
  } finally {
    await store.close();
  }
}
