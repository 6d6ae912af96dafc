/** Test child: takes the data directory's process lock, prints `locked` (or the refusal) and holds it until killed. */
import { ProcessLock } from '#event-store/lmdb/process-lock';

try {
  ProcessLock.acquire(process.argv[2]);
  process.stdout.write(`locked ${process.pid}\n`);
  setInterval(() => undefined, 60_000);
} catch (error) {
  process.stdout.write(`${(error as Error).name}: ${(error as Error).message}\n`);
  process.exitCode = 3;
}
