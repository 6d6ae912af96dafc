import type { AppConfig } from '#platform/config';
import { systemClock } from '#platform/clock';
import { portFrom, startHealthEndpoint, storesAnswer, type HealthEndpoint } from '#runtime/health-endpoint';
import { createRuntime, type Runtime } from '#runtime/runtime.module';
import { openStores, type Stores } from '#runtime/stores';
import { createContextServices, service } from '#composition/contexts';

export const DEFAULT_WORKER_PORT = 8082;

/** `WORKER_PORT` (default 8082): where the worker serves `/health/live`, `/health/ready`, `/health` and `/metrics`. */
export function workerPort(env: NodeJS.ProcessEnv = process.env): number {
  return portFrom(env, 'WORKER_PORT', DEFAULT_WORKER_PORT);
}

export interface Worker {
  runtime: Runtime;
  /** `http://host:port` of the health endpoint. */
  url: string;
  port: number;
  /** Stops the deliveries, closes the endpoint and the stores (given ones included). */
  stop(): Promise<void>;
}

/**
 * The integrations worker's work: its probes first (live as soon as they listen, so a slow store
 * does not get the process restarted), then the stores, a runtime that projects nothing, and the
 * contexts' services, whose integration runtime delivers events and runs scripts. Ready once the
 * stores answer: the worker reads what the projector has written so far, whatever its lag.
 */
export async function runWorker(options: { config: AppConfig; adminToken: string; port?: number; stores?: Stores }): Promise<Worker> {
  const { config } = options;
  let runtime: Runtime | null = null;
  const endpoint: HealthEndpoint = await startHealthEndpoint({
    name: 'integrations worker',
    host: config.host,
    port: options.port ?? workerPort(),
    runtime: () => runtime,
    ready: storesAnswer,
  });
  let stores: Stores | null = options.stores ?? null;
  try {
    stores ??= await openStores(config);
    const { projections, reactors } = service();
    const started = createRuntime({ config, stores, clock: systemClock, projections, runProjections: false, reactors });
    const services = await createContextServices(started, options.adminToken);
    runtime = started;
    const opened = stores;
    return {
      runtime: started,
      url: endpoint.url,
      port: endpoint.port,
      async stop() {
        await services.close();
        await started.work.close();
        await endpoint.close();
        await opened.close();
      },
    };
  } catch (error) {
    await endpoint.close().catch(() => undefined);
    await stores?.close().catch(() => undefined);
    throw error;
  }
}
