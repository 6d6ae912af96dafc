import { projectionBuild } from './build-digest';
import { Global, Module, type DynamicModule } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { AppendedEventsCounter, CommittedEventsPublisher } from './committed-events';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { CLOCK, type Clock } from '#platform/clock';
import { log } from '#platform/logging';
import { EVENT_STORE } from '#event-store/event-store.port';
import { READ_STORE } from '#read-store/read-store.port';
import { BLOB_STORE } from '#blob-store/blob-store.port';
import type { Projection } from '#read-store/projections/projection';
import { ProjectionRunner } from '#read-store/projections/projection-runner';
import { CommandRunner, COMMAND_RUNNER } from './command-runner';
import { Metrics, METRICS } from './metrics';
import { CheckpointPollingReadYourWrites, InProcessReadYourWrites } from './read-your-writes';
import { replayMemoryGuards, type Stores } from './stores';
import { ReactorRunner, type Reactor, type Services, type ServiceToken } from './reactor';
import { PROJECTION_RUNNER } from './projections-ready';
import { ReactorDispatcher } from './reactor-dispatcher';
import { DEFAULT_CHECKPOINT_INTERVAL_MS, ReactorCheckpoints } from './reactor-checkpoint';
import { UNTRUSTED_WORK } from '#platform/untrusted-work/untrusted-work';
import { WorkerPool } from '#platform/untrusted-work/worker-pool';

export const STORES = Symbol('STORES');

export interface Runtime {
  config: AppConfig;
  stores: Stores;
  clock: Clock;
  metrics: Metrics;
  /** Present where this process runs the projections (embedded mode, or the projector). */
  runner: ProjectionRunner | null;
  /** The reactors this process runs (where it runs the projections): they start once the projections have caught up. */
  reactors: readonly ReactorRunner[];
  /** Every reactor of the service, run here or not. */
  reactorNames: readonly string[];
  commands: CommandRunner;
  /** The untrusted-work pool: heavy work on what callers send, off the request thread. */
  work: WorkerPool;
  /** What reactions get as `services`: bound once the process's Nest container exists. */
  bindServices(get: <T>(token: ServiceToken<T>) => T): void;
  /** Stops the reactors (and keeps them from starting). */
  stopReactors(): Promise<void>;
}

// pino takes (context, message); the runners speak (message, context).
const runnerLogger = {
  warn: (message: string, context?: object) => log.warn(context ?? {}, message),
  error: (message: string, context?: object) => log.error(context ?? {}, message),
};

/**
 * Wires stores, projections, reactors, read-your-writes and the command runner for one process.
 * Reactors run where the projections run (they wait for the read models before reacting); a
 * process that does not run them (the distributed API) still knows them, to wait for their
 * checkpoints after a write.
 */
export function createRuntime(options: {
  config: AppConfig;
  stores: Stores;
  clock: Clock;
  projections: readonly Projection[];
  runProjections: boolean;
  reactors?: readonly Reactor[];
  /** Options for each ReactorRunner (tests: shorter backoff). */
  reactorOptions?: Partial<ConstructorParameters<typeof ReactorRunner>[5]>;
}): Runtime {
  const { config, stores, clock, projections } = options;
  const reactors = options.reactors ?? [];
  const names = new Set<string>();
  for (const reactor of reactors) {
    if (names.has(reactor.name)) throw new Error(`two reactors are named '${reactor.name}'`);
    names.add(reactor.name);
  }
  const metrics = new Metrics();
  const runner: ProjectionRunner | null = options.runProjections
    ? new ProjectionRunner(stores.events, stores.reads, projections, {
        logger: runnerLogger,
        resources: { blobs: stores.blobs },
        onApplied: (events) => metrics.observeApplied(events),
        rebuildWhenChanged: stores.mode === 'embedded',
        // Alone on the stores only during the catch-up at start, while the front door answers 503 and the workers wait.
        replayMemory: replayMemoryGuards(config, stores, (): boolean => runner !== null && !runner.isCaughtUp),
        ...projectionBuild(stores.mode),
      })
    : null;
  const reactorRunners: ReactorRunner[] = [];
  // Writes wait for the reactors that do not say otherwise (long-running work is left out).
  const awaitedRunners: ReactorRunner[] = [];
  const readYourWrites = runner
    ? new InProcessReadYourWrites(runner, config.readYourWritesTimeoutMs, metrics, awaitedRunners)
    : new CheckpointPollingReadYourWrites(
        stores.reads,
        config.readYourWritesTimeoutMs,
        metrics,
        undefined,
        undefined,
        reactors.filter((reactor) => reactor.awaitedByWrites !== false),
      );
  const commands = new CommandRunner(stores.events, readYourWrites, clock, metrics);
  const work = new WorkerPool({
    threads: config.untrustedWorkThreads,
    memoryMb: config.untrustedWorkMemoryMb,
    timeMs: config.untrustedWorkTimeMs,
    queueLimit: config.untrustedWorkQueue,
    queueTimeMs: config.untrustedWorkTimeMs * 3,
    onOutcome: (task, outcome, seconds) => metrics.untrustedWork.observe({ task, outcome }, seconds),
  });
  let bound: (<T>(token: ServiceToken<T>) => T) | null = null;
  const services: Services = {
    get(token) {
      if (!bound)
        throw new Error(`no services in this process yet: cannot give ${typeof token === 'symbol' ? token.description : token.name}`);
      return bound(token);
    },
  };
  if (runner && reactors.length > 0) {
    // One read of the log for the projections and every reactor; the reactors' checkpoints saved together.
    const stream = new ReactorDispatcher(runner);
    const checkpoints = new ReactorCheckpoints(stores.reads, reactorCheckpointInterval(stores.mode), runnerLogger);
    for (const reactor of reactors) {
      const reactorRunner = new ReactorRunner(stores.events, stores.reads, reactor, commands, services, {
        projections: runner,
        metrics,
        logger: runnerLogger,
        stream,
        checkpoints,
        ...options.reactorOptions,
      });
      reactorRunners.push(reactorRunner);
      if (reactor.awaitedByWrites !== false) awaitedRunners.push(reactorRunner);
    }
  }
  let reactorsStopped = false;
  // Reactors start once the read models have caught up: their reactions read them, and replaying
  // the log's reactions against half-built read models would only make them wait.
  if (runner && reactorRunners.length > 0) {
    void runner.whenCaughtUp().then(async () => {
      for (const reactor of reactorRunners) {
        if (reactorsStopped) return;
        await reactor.start().catch((error: unknown) => log.error({ err: error, reactor: reactor.name }, 'could not start a reactor'));
      }
    });
  }
  // What the start did not need loads once the read models have caught up, not alongside the start.
  if (runner) void runner.whenCaughtUp().then(() => stores.reads.loadInBackground?.());
  else stores.reads.loadInBackground?.();
  return {
    config,
    stores,
    clock,
    metrics,
    runner,
    reactors: reactorRunners,
    reactorNames: reactors.map((reactor) => reactor.name),
    commands,
    work,
    bindServices(get) {
      bound = get;
    },
    async stopReactors() {
      reactorsStopped = true;
      await Promise.all(reactorRunners.map((reactor) => reactor.stop()));
    },
  };
}

/**
 * How long reactor progress may wait before it is saved. Embedded mode: a second (only a restart
 * reads it, and replays idempotent reactions since). Distributed mode: a few milliseconds, since the
 * API processes wait for their writes' cascades by reading it; every reactor's progress still goes
 * in one write.
 */
export function reactorCheckpointInterval(mode: Stores['mode']): number {
  return mode === 'embedded' ? DEFAULT_CHECKPOINT_INTERVAL_MS : 5;
}

/** Makes the runtime's parts injectable everywhere (global module). */
@Global()
@Module({})
export class RuntimeModule {
  static forRuntime(runtime: Runtime): DynamicModule {
    const providers = [
      { provide: APP_CONFIG, useValue: runtime.config },
      { provide: STORES, useValue: runtime.stores },
      { provide: EVENT_STORE, useValue: runtime.stores.events },
      { provide: READ_STORE, useValue: runtime.stores.reads },
      { provide: BLOB_STORE, useValue: runtime.stores.blobs },
      { provide: CLOCK, useValue: runtime.clock },
      { provide: METRICS, useValue: runtime.metrics },
      { provide: PROJECTION_RUNNER, useValue: runtime.runner },
      { provide: COMMAND_RUNNER, useValue: runtime.commands },
      { provide: UNTRUSTED_WORK, useValue: runtime.work },
    ];
    return {
      module: RuntimeModule,
      // The command, query and event buses (global): controllers and reactions dispatch through them.
      imports: [CqrsModule.forRoot()],
      providers: [...providers, CommittedEventsPublisher, AppendedEventsCounter],
      exports: providers.map((p) => p.provide),
    };
  }
}
