import { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';

/** Events per page read. */
const PAGE = 4096;

/**
 * Events of the embedded log in `directory` read and decoded through the event store, in pages,
 * with nothing else done: the floor under any replay of it. `everyNth` > 1 reads one page in that
 * many, spread evenly over the whole log (positions are 1, 2, 3… there), for a rate in a fraction of
 * the time; 1 reads every event.
 */
export async function readLog(directory: string, everyNth = 1): Promise<{ events: number; seconds: number }> {
  const store = LmdbEventStore.open(directory);
  try {
    const started = performance.now();
    let events = 0;
    for (let page = 0; ; page += everyNth) {
      const read = await store.readAll({ after: BigInt(page * PAGE), maxCount: PAGE });
      if (read.length === 0) break;
      events += read.length;
    }
    return { events, seconds: (performance.now() - started) / 1000 };
  } finally {
    await store.close();
  }
}
