import { loadConfig } from '#platform/config';
import { configureLogging, log } from '#platform/logging';
import { distributedOnly } from '#runtime/distributed-only';
import { exitCodeOf, requireSharedKeys } from '#runtime/process-settings';
import { handleUnhandledRejections } from '#runtime/unhandled-rejections';

/**
 * The distributed mode's integration worker (docs/api/integrations.md): delivers integration events to
 * development tunnels and runs integration scripts. It reads the read models the projector writes
 * and records what it delivered in the event log; it projects nothing. Run any number of replicas:
 * each installation's deliveries are held by one replica at a time (a lease on the installation's
 * delivery stream), and a replica that dies hands them over once its lease has passed.
 * Serves `/health/live`, `/health/ready`, `/health` and `/metrics` on `WORKER_PORT` (8082).
 */
async function main(): Promise<void> {
  const config = loadConfig();
  configureLogging(config.logLevel);
  handleUnhandledRejections();
  distributedOnly(config, 'integrations worker', 'the API process (npm start) delivers integration events itself');
  requireSharedKeys(config, 'integrations worker');
  // The contexts' modules (seconds of loading) are required once the configuration is known to be
  // one it can run with: a refused one exits at once.
  const { runWorker, workerPort } = require('./worker') as typeof import('./worker');
  const port = workerPort();
  process.env.INTEGRATIONS_WORKER = 'true';
  const worker = await runWorker({ config, adminToken: config.adminToken!, port });
  log.info({ mode: worker.runtime.stores.mode, url: worker.url }, 'integrations worker started');
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  log.info('shutting down');
  await worker.stop();
  process.exit(0);
}

if (require.main === module) {
  main().catch((error) => {
    log.fatal({ err: error }, `could not start: ${(error as Error).message}`);
    process.exit(exitCodeOf(error));
  });
}
