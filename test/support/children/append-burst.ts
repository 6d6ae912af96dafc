/**
 * Test child: appends batches as fast as it can from many concurrent appenders and writes one line
 * per acknowledged batch to stdout (`ack <stream> <lastRevision> <batchSize>`), until killed.
 * Usage: append-burst.ts <dataDir> <appenders>
 */
import { writeSync } from 'node:fs';
import { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';

async function main(): Promise<void> {
  const [directory, appenders = '20'] = process.argv.slice(2);
  const store = LmdbEventStore.open(directory);
  writeSync(1, 'ready\n');
  await Promise.all(
    Array.from({ length: Number(appenders) }, async (_, appender) => {
      const stream = `burst-${process.pid}x${appender}`;
      let revision = -1;
      for (let batchNumber = 0; ; batchNumber++) {
        const size = 1 + (batchNumber % 5);
        const batch = Array.from({ length: size }, (_, i) => ({
          type: 'BurstEvent',
          data: { batch: `${stream}/${batchNumber}`, size, index: i, padding: 'x'.repeat(200) },
        }));
        const result = await store.appendToStream(stream, batch, revision < 0 ? 'no_stream' : revision);
        revision = result.nextExpectedRevision;
        writeSync(1, `ack ${stream} ${revision} ${size}\n`);
      }
    }),
  );
}

main().catch((error) => {
  writeSync(2, `${String(error?.stack ?? error)}\n`);
  process.exit(1);
});
