/** Test child: opens an LMDB event store and reports `opened` or the error's name and message. */
import { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';

try {
  const store = LmdbEventStore.open(process.argv[2]);
  process.stdout.write('opened\n');
  void store.close();
} catch (error) {
  process.stdout.write(`${(error as Error).name}: ${(error as Error).message}\n`);
  process.exitCode = 3;
}
