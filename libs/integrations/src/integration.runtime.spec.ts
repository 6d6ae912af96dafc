import type { CommandBus } from '@nestjs/cqrs';
import { loadConfig } from '#platform/config';
import { MemoryReadStore } from '#read-store/memory/memory-read-store';
import type { ReadStore } from '#read-store/read-store.port';
import type { BlobStore } from '#blob-store/blob-store.port';
import type { CommandRunner } from '#runtime/command-runner';
import type { UntrustedWork } from '#platform/untrusted-work/untrusted-work';
import type { IntegrationEventPresenter } from './integration.event-presenter';
import { INTEGRATION_EVENTS } from './integration.projections';
import { IntegrationRuntime } from './integration.runtime';
import { ClaimDeliveries, RecordProcessed } from './integration-deliveries.commands';
import type { IntegrationEventDoc } from './integration.projections';
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
    return new IntegrationRuntime(
      reads,
      {} as BlobStore,
      loadConfig({}),
      {} as CommandBus,
      {} as CommandRunner,
      {} as IntegrationSecrets,
      {} as UntrustedWork,
      {} as IntegrationEventPresenter,
      projections,
    );
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

describe('the integrations worker on the embedded read store', () => {
  const previous = process.env.INTEGRATIONS_WORKER;
  beforeAll(() => void delete process.env.INTEGRATIONS_WORKER);
  afterAll(() => {
    if (previous !== undefined) process.env.INTEGRATIONS_WORKER = previous;
  });
  // A clock that never moves: no timeout or interval fires, so whatever happens is driven by commits.
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  /** Lets promise continuations run (no timer involved), until `done` or a bounded number of turns. */
  async function microtasks(done: () => boolean = () => false): Promise<void> {
    for (let turn = 0; turn < 1000 && !done(); turn++) await Promise.resolve();
  }

  const pendingEvent = (id: string): IntegrationEventDoc => ({
    _id: id,
    integrationName: 'hook',
    installationId: 'inst-1',
    organizationId: 'o1',
    createdAt: '2026-01-01T00:00:00.000Z',
    payload: { eventId: id, type: 'space_content_updated', installationId: 'inst-1' },
    status: 'pending',
    sequence: id,
    logs: [],
  });

  it('given an idle worker, when a pending integration event is committed, then it is delivered with no timer ever firing', async () => {
    const { reads, polls } = countingReads();
    const recorded: string[] = [];
    const commands = {
      execute: async (command: unknown) => {
        if (command instanceof ClaimDeliveries) return true;
        if (command instanceof RecordProcessed) recorded.push(command.event.eventId);
        return undefined;
      },
    } as unknown as CommandBus;
    const runtime = new IntegrationRuntime(
      reads,
      {} as BlobStore,
      loadConfig({}),
      commands,
      {} as CommandRunner,
      {} as IntegrationSecrets,
      {} as UntrustedWork,
      {} as IntegrationEventPresenter,
      null,
    );
    jest.spyOn(runtime, 'process').mockResolvedValue({ status: 'success', logs: [] });
    runtime.onApplicationBootstrap();
    await microtasks();
    // One look at start; idle, it neither reads again nor keeps a timer to poll with.
    expect(polls()).toBe(1);
    expect(jest.getTimerCount()).toBe(0);

    await reads.collection<IntegrationEventDoc>(INTEGRATION_EVENTS).put(pendingEvent('e1'));
    await microtasks(() => recorded.length > 0);
    expect(recorded).toEqual(['e1']);
    runtime.onModuleDestroy();
  });

  it('given a commit to another collection, then the idle worker does not look for events', async () => {
    const { reads, polls } = countingReads();
    const runtime = new IntegrationRuntime(
      reads,
      {} as BlobStore,
      loadConfig({}),
      {} as CommandBus,
      {} as CommandRunner,
      {} as IntegrationSecrets,
      {} as UntrustedWork,
      {} as IntegrationEventPresenter,
      null,
    );
    runtime.onApplicationBootstrap();
    await microtasks();
    await reads.collection('spaces').put({ _id: 's1' });
    await microtasks();
    expect(polls()).toBe(1);
    runtime.onModuleDestroy();
  });
});
