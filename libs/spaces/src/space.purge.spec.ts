import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test, type TestingModule } from '@nestjs/testing';
import { loadConfig } from '#platform/config';
import { ManualClock } from '#platform/clock';
import type { Caller } from '#platform/http/auth';
import { configureLogging } from '#platform/logging';
import { createRuntime, RuntimeModule, type Runtime } from '#runtime/runtime.module';
import { openStores } from '#runtime/stores';
import { spaceDecider, spaceStream, type SpaceCommand } from './space.decider';
import { SPACES, spaceProjection, type SpaceDoc } from './space.projections';
import { PurgeSpaceHandler, SpacePurgeJob, SpacePurgeScheduler } from './space.purge';

const DAY = 86_400_000;

/** The retention job on the embedded stores, driven by a ManualClock. */
describe('SpacePurgeJob', () => {
  let directory: string;
  let runtime: Runtime;
  let clock: ManualClock;
  let module: TestingModule;
  let job: SpacePurgeJob;
  const ada: Caller = {
    kind: 'user',
    userId: 'ada',
    tokenId: 't',
    user: { id: 'ada', displayName: 'Ada', email: 'ada@example.com', photoURL: null },
  };

  const run = (spaceId: string, command: SpaceCommand) =>
    runtime.commands.run(spaceStream(spaceId), spaceDecider, command, { caller: ada });
  const by = { userId: 'ada', role: 'admin' as const };
  async function space(spaceId: string): Promise<void> {
    await run(spaceId, {
      kind: 'CreateSpace',
      spaceId,
      organizationId: 'o1',
      title: spaceId,
      emoji: null,
      visibility: 'private',
      editMode: 'live',
      defaultLevel: null,
      parent: null,
      position: 'V',
      by,
      now: clock.now().toISOString(),
    });
  }
  const remove = (spaceId: string) => run(spaceId, { kind: 'DeleteSpace', spaceId, by, now: clock.now().toISOString() });
  const doc = (spaceId: string) => runtime.stores.reads.collection<SpaceDoc>(SPACES).get(spaceId);

  beforeAll(async () => {
    configureLogging('silent');
    directory = mkdtempSync(join(tmpdir(), 'space-purge-'));
    const config = loadConfig({ DATA_DIR: directory });
    clock = new ManualClock(new Date('2026-03-01T00:00:00.000Z'));
    runtime = createRuntime({ config, stores: await openStores(config), clock, projections: [spaceProjection], runProjections: true });
    await runtime.runner!.start();
    await runtime.runner!.whenCaughtUp();
    // The job dispatches PurgeSpace on the command bus, as in the service.
    module = await Test.createTestingModule({
      imports: [RuntimeModule.forRuntime(runtime)],
      providers: [PurgeSpaceHandler, SpacePurgeJob],
    }).compile();
    await module.init();
    job = module.get(SpacePurgeJob);
  });

  afterAll(async () => {
    await module.close();
    await runtime.runner?.stop();
    await runtime.stores.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('purges spaces deleted more than 7 days ago, once, by appending SpacePurged; restored and recent ones stay', async () => {
    await space('old');
    await space('recent');
    await space('restored');
    await space('live');
    await remove('old');
    await remove('restored');
    clock.advance(3 * DAY);
    await remove('recent');
    clock.advance(1 * DAY);
    await run('restored', { kind: 'RestoreSpace', spaceId: 'restored', by, now: clock.now().toISOString() });

    // Day 4 after the first deletion: nothing is due.
    expect(await job.runOnce(clock.now())).toEqual({ purged: [] });
    // Exactly 7 days: still restorable, not purged.
    clock.set(new Date(Date.parse('2026-03-01T00:00:00.000Z') + 7 * DAY));
    expect(await job.runOnce(clock.now())).toEqual({ purged: [] });
    clock.advance(1);
    expect(await job.runOnce(clock.now())).toEqual({ purged: ['old'] });
    expect((await doc('old'))?.purgedAt).toBe(clock.now().toISOString());
    const events = await runtime.stores.events.readStream(spaceStream('old'));
    expect(events.map((event) => event.type)).toEqual(['SpaceCreated', 'SpaceDeleted', 'SpacePurged']);
    expect(events[2].metadata).toMatchObject({ source: 'system', actor: { type: 'system', id: 'space-retention' } });
    expect(await job.runOnce(clock.now())).toEqual({ purged: [] });

    clock.advance(3 * DAY);
    expect(await job.runOnce(clock.now())).toEqual({ purged: ['recent'] });
    expect((await doc('restored'))?.purgedAt).toBeUndefined();
    expect((await doc('live'))?.purgedAt).toBeUndefined();
  });

  it('the scheduler runs the job against the injected clock', async () => {
    await space('scheduled');
    await remove('scheduled');
    const scheduler = new SpacePurgeScheduler(job, clock);
    await scheduler.tick();
    expect((await doc('scheduled'))?.purgedAt).toBeUndefined();
    clock.advance(8 * DAY);
    await scheduler.tick();
    expect((await doc('scheduled'))?.purgedAt).toBe(clock.now().toISOString());
    await scheduler.onApplicationShutdown();
  });
});
