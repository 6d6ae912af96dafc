import { Global, Module, type DynamicModule } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../platform/src/config';
import { CLOCK, type Clock } from '../../platform/src/clock';
import { log } from '../../platform/src/logging';
import { EVENT_STORE } from '../../event-store/src/event-store.port';
import { READ_STORE } from '../../read-store/src/read-store.port';
import { BLOB_STORE } from '../../blob-store/src/blob-store.port';
import type { Projection } from '../../read-store/src/projections/projection';
import { ProjectionRunner } from '../../read-store/src/projections/projection-runner';
import { CommandRunner, COMMAND_RUNNER } from './command-runner';
import { Metrics, METRICS } from './metrics';
import { CheckpointPollingReadYourWrites, InProcessReadYourWrites } from './read-your-writes';
import type { Stores } from './stores';

export const PROJECTION_RUNNER = Symbol('PROJECTION_RUNNER');
export const STORES = Symbol('STORES');

export interface Runtime {
  config: AppConfig;
  stores: Stores;
  clock: Clock;
  metrics: Metrics;
  /** Present where this process runs the projections (embedded mode, or the projector). */
  runner: ProjectionRunner | null;
  commands: CommandRunner;
}

/** Wires stores, projections, read-your-writes and the command runner for one process. */
export function createRuntime(options: {
  config: AppConfig;
  stores: Stores;
  clock: Clock;
  projections: readonly Projection[];
  runProjections: boolean;
}): Runtime {
  const { config, stores, clock, projections } = options;
  const metrics = new Metrics();
  const runner = options.runProjections
    ? new ProjectionRunner(stores.events, stores.reads, projections, {
        // pino takes (context, message); the runner speaks (message, context).
        logger: { warn: (message, context) => log.warn(context ?? {}, message), error: (message, context) => log.error(context ?? {}, message) },
      })
    : null;
  const readYourWrites = runner
    ? new InProcessReadYourWrites(runner, config.readYourWritesTimeoutMs, metrics)
    : new CheckpointPollingReadYourWrites(stores.reads, config.readYourWritesTimeoutMs, metrics);
  const commands = new CommandRunner(stores.events, readYourWrites, clock, metrics);
  return { config, stores, clock, metrics, runner, commands };
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
    ];
    return { module: RuntimeModule, providers, exports: providers.map((p) => p.provide) };
  }
}
