import { loadConfig, type AppConfig } from '#platform/config';
import { configureLogging, log } from '#platform/logging';
import { distributedOnly as requireDistributed } from '#runtime/distributed-only';
import { exitCodeOf, requireSharedKeys } from '#runtime/process-settings';
import { handleUnhandledRejections } from '#runtime/unhandled-rejections';

/**
 * The distributed mode's projector process (docs/architecture.md, Modes; docs/read-side.md, Reactors): applies the event log to the
 * MongoDB read models and commits the checkpoint the API replicas poll for read-your-writes, and
 * runs the reactors (their commands go through the contexts' services, in a Nest container
 * without HTTP).
 * Serves `/health/live` (up), `/health/ready` and `/health` (stores answer, caught up) and
 * `/metrics` on `PROJECTOR_PORT` (8081).
 */
export function distributedOnly(config: AppConfig): void {
  requireDistributed(config, 'projector', 'the API process (npm start) runs the projections itself');
}

async function main(): Promise<void> {
  const config = loadConfig();
  configureLogging(config.logLevel);
  handleUnhandledRejections();
  distributedOnly(config);
  requireSharedKeys(config, 'projector');
  // The contexts' modules (seconds of loading) are required once the configuration is known to be
  // one it can run with: a refused one exits at once.
  const { projectorPort, runProjector } = require('#runtime/projector') as typeof import('#runtime/projector');
  const { createContextServices, service } = require('#composition/contexts') as typeof import('#composition/contexts');
  const port = projectorPort();
  const controller = new AbortController();
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      log.warn({ signal }, 'second signal: exiting without waiting for a clean stop');
      process.exit(1);
    }
    signalled = true;
    log.info({ signal }, 'shutting down');
    controller.abort();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  // Reactions run the contexts' services, which derive their signing keys from the admin token.
  const adminToken = config.adminToken!;
  const { projections, reactors } = service();
  const projector = await runProjector({
    config,
    port,
    signal: controller.signal,
    projections,
    reactors,
    services: (runtime) => createContextServices(runtime, adminToken),
  });
  log.info({ port: projector.port, url: projector.url, mode: projector.runtime.stores.mode }, 'projector started');
  projector.runtime.runner!.whenCaughtUp().then(
    () => log.info({ checkpoint: projector.runtime.runner!.position()?.toString() ?? null }, 'projections caught up'),
    () => undefined,
  );
  try {
    await projector.closed;
  } catch (error) {
    log.error({ err: error }, `the projector did not stop cleanly: ${(error as Error).message}`);
    process.exit(1);
  }
  log.info('projector stopped');
  process.exit(0);
}

if (require.main === module) {
  main().catch((error) => {
    log.fatal({ err: error }, `could not start: ${(error as Error).message}`);
    process.exit(exitCodeOf(error));
  });
}
