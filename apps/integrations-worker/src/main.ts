import { loadConfig } from '../../../libs/platform/src/config';
import { systemClock } from '../../../libs/platform/src/clock';
import { newId } from '../../../libs/platform/src/ids';
import { configureLogging, log } from '../../../libs/platform/src/logging';
import { distributedOnly } from '../../../libs/runtime/src/distributed-only';
import { createRuntime } from '../../../libs/runtime/src/runtime.module';
import { openStores } from '../../../libs/runtime/src/stores';
import { createContextServices, service } from '../../../libs/composition/src/contexts';

/**
 * The distributed mode's integration worker (docs/api/integrations.md): delivers integration events to
 * development tunnels and runs integration scripts. It reads the read models the projector writes
 * and records what it delivered in the event log; it projects nothing. Run any number of replicas:
 * each installation's deliveries are held by one replica at a time (a lease on the installation's
 * delivery stream), and a replica that dies hands them over once its lease has passed.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  configureLogging(config.logLevel);
  distributedOnly(config, 'integrations worker', 'the API process (npm start) delivers integration events itself');
  process.env.INTEGRATIONS_WORKER = 'true';
  const stores = await openStores(config);
  const { projections, reactors } = service();
  const runtime = createRuntime({ config, stores, clock: systemClock, projections, runProjections: false, reactors });
  // The admin token only derives secrets the API signs with; the worker signs nothing of them.
  const services = await createContextServices(runtime, config.adminToken ?? newId(32));
  log.info({ mode: stores.mode }, 'integrations worker started');
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  log.info('shutting down');
  await services.close();
  await stores.close();
  process.exit(0);
}

if (require.main === module) {
  main().catch((error) => {
    log.fatal({ err: error }, `could not start: ${(error as Error).message}`);
    process.exit(1);
  });
}
