import { Gauge } from 'prom-client';
import type { AppConfig } from '#platform/config';
import { systemClock, type Clock } from '#platform/clock';
import { log } from '#platform/logging';
import type { Projection } from '#read-store/projections/projection';
import type { Reactor, Services } from './reactor';
import { portFrom, startHealthEndpoint, type HealthEndpoint } from './health-endpoint';
import { createRuntime, type Runtime } from './runtime.module';
import { openStores, type Stores } from './stores';

export const DEFAULT_PROJECTOR_PORT = 8081;

/** `PROJECTOR_PORT` (default 8081): where the projector serves `/health/live`, `/health/ready`, `/health` and `/metrics`. */
export function projectorPort(env: NodeJS.ProcessEnv = process.env): number {
  return portFrom(env, 'PROJECTOR_PORT', DEFAULT_PROJECTOR_PORT);
}

export interface Projector {
  runtime: Runtime;
  /** The port the health endpoint listens on (the real one when 0 was asked for). */
  port: number;
  /** `http://host:port` of the health endpoint. */
  url: string;
  /** Stops the projector (same as aborting its signal); resolves once everything is closed. */
  stop(): Promise<void>;
  /** Resolves once the projector has stopped, rejects when stopping failed. */
  readonly closed: Promise<void>;
}

/**
 * The projector process's work (docs/architecture.md, Modes; docs/read-side.md, Projections): opens the configured stores, runs every
 * projection against the log through a `ProjectionRunner` (checkpoint committed with the
 * read-model writes, resubscribing with backoff after a drop), runs every reactor once the
 * projections have caught up (each with its own checkpoint), and serves its probes and metrics on
 * a small HTTP endpoint (`startHealthEndpoint`): live as soon as it listens, ready once the stores
 * answer and the projections have caught up. API processes in distributed mode neither project nor
 * react: they wait for their writes (and the cascades they set off) by polling the checkpoints.
 *
 * The health endpoint listens before the runner catches up, so `/health/ready` (and `/health`)
 * answer 503 `starting` while a long log is replayed and 200 once caught up, while `/health/live`
 * answers 200 throughout. Aborting `signal` (or calling `stop()`) stops the
 * runner, closes the HTTP server and closes the stores (given ones included: they are handed over).
 */
export async function runProjector(options: {
  config: AppConfig;
  stores?: Stores;
  signal?: AbortSignal;
  /** Defaults to `PROJECTOR_PORT`, else 8081. */
  port?: number;
  clock?: Clock;
  /** Every projection of the service (the composition root's). */
  projections: readonly Projection[];
  /** Every reactor of the service (the composition root's); none when absent. */
  reactors?: readonly Reactor[];
  /** The contexts' services the reactions call (a Nest container), built on this runtime; closed on stop. */
  services?: (runtime: Runtime) => Promise<Services & { close(): Promise<void> }>;
  /** Options for each ReactorRunner (tests: shorter backoff). */
  reactorOptions?: Parameters<typeof createRuntime>[0]['reactorOptions'];
}): Promise<Projector> {
  const { config, signal } = options;
  const port = options.port ?? projectorPort();
  const stores = options.stores ?? (await openStores(config));
  let runtime: Runtime;
  try {
    runtime = createRuntime({
      config,
      stores,
      clock: options.clock ?? systemClock,
      projections: options.projections,
      reactors: options.reactors ?? [],
      reactorOptions: options.reactorOptions,
      runProjections: true,
    });
  } catch (error) {
    await stores.close().catch(() => undefined);
    throw error;
  }
  const runner = runtime.runner!;
  const caughtUpGauge = new Gauge({
    name: 'projection_caught_up',
    help: '1 once the projections have applied everything that existed when they subscribed, else 0',
    registers: [runtime.metrics.registry],
  });

  let endpoint: HealthEndpoint | null = null;
  let services: Awaited<ReturnType<NonNullable<typeof options.services>>> | null = null;
  try {
    if (options.services) {
      services = await options.services(runtime);
      runtime.bindServices(services.get.bind(services));
    }
    endpoint = await startHealthEndpoint({
      name: 'projector',
      host: config.host,
      port,
      runtime: () => runtime,
      ready: (report) => report.status === 'ok',
      onReport: (report) => caughtUpGauge.set(report.projections.caughtUp ? 1 : 0),
    });
    await runner.start();
  } catch (error) {
    await endpoint?.close().catch(() => undefined);
    await runtime.stopReactors().catch(() => undefined);
    await runner.stop().catch(() => undefined);
    await services?.close().catch(() => undefined);
    await stores.close().catch(() => undefined);
    throw error;
  }
  const health = endpoint;

  let resolveClosed!: () => void;
  let rejectClosed!: (error: unknown) => void;
  const closed = new Promise<void>((resolve, reject) => {
    resolveClosed = resolve;
    rejectClosed = reject;
  });
  closed.catch(() => undefined); // observed by whoever awaits it; never an unhandled rejection
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      signal?.removeEventListener('abort', onAbort);
      const errors: unknown[] = [];
      await runtime.stopReactors().catch((e: unknown) => errors.push(e));
      await runtime.work.close().catch((e: unknown) => errors.push(e));
      await runner.stop().catch((e: unknown) => errors.push(e));
      await services?.close().catch((e: unknown) => errors.push(e));
      await health.close().catch((e: unknown) => errors.push(e));
      await stores.close().catch((e: unknown) => errors.push(e));
      if (errors.length === 0) return resolveClosed();
      const error = errors.length === 1 ? errors[0] : new AggregateError(errors, 'the projector did not stop cleanly');
      rejectClosed(error);
      throw error;
    })();
    return stopping;
  };
  function onAbort(): void {
    stop().catch((error: unknown) => log.error({ err: error }, 'the projector did not stop cleanly'));
  }
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });

  return { runtime, port: health.port, url: health.url, stop, closed };
}
