import type { CommandBus } from '@nestjs/cqrs';
import { loadConfig } from '../../platform/src/config';
import { MemoryReadStore } from '../../read-store/src/memory/memory-read-store';
import type { ReadStore } from '../../read-store/src/read-store.port';
import type { BlobStore } from '../../blob-store/src/blob-store.port';
import type { CommandRunner } from '../../runtime/src/command-runner';
import type { UntrustedWork } from '../../platform/src/untrusted-work/untrusted-work';
import type { IntegrationEventPresenter } from './integration.event-presenter';
import { INTEGRATION_EVENTS } from './integration.projections';
import { IntegrationRuntime } from './integration.runtime';
import type { IntegrationSecrets } from './integration.secrets';

/** A read store that counts the worker's reads of pending integration events. */
function countingReads(): { reads: ReadStore; polls: () => number } {
  const store = new MemoryReadStore();
  let polls = 0;
  const reads = new Proxy(store, {
    get(target, property, receiver) {
      if (property !== 'collection') return Reflect.get(target, property, receiver);
      return (name: string) => {
        if (name === INTEGRATION_EVENTS) polls += 1;
        return target.collection(name);
      };
    },
  });
  return { reads, polls: () => polls };
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the integrations worker at start', () => {
  const previous = process.env.INTEGRATIONS_WORKER;
  beforeAll(() => void delete process.env.INTEGRATIONS_WORKER);
  afterAll(() => {
    if (previous !== undefined) process.env.INTEGRATIONS_WORKER = previous;
  });

  function worker(reads: ReadStore, projections: { whenCaughtUp(): Promise<void> } | null) {
    // Embedded mode (no EVENTSTORE_URL): the worker runs in the service.
    return new IntegrationRuntime(reads, {} as BlobStore, loadConfig({}), {} as CommandBus, {} as CommandRunner, {} as IntegrationSecrets, {} as UntrustedWork, {} as IntegrationEventPresenter, projections);
  }

  it('given projections still replaying the log, then it reads no pending event until they have caught up', async () => {
    const { reads, polls } = countingReads();
    let caughtUp!: () => void;
    const runtime = worker(reads, { whenCaughtUp: () => new Promise<void>((resolve) => (caughtUp = resolve)) });
    runtime.onApplicationBootstrap();
    await settle(100);
    expect(polls()).toBe(0);
    caughtUp();
    await settle(100);
    expect(polls()).toBeGreaterThan(0);
    runtime.onModuleDestroy();
  });

  it('given a process that does not project, then it polls from the start', async () => {
    const { reads, polls } = countingReads();
    const runtime = worker(reads, null);
    runtime.onApplicationBootstrap();
    await settle(100);
    expect(polls()).toBeGreaterThan(0);
    runtime.onModuleDestroy();
  });
});
