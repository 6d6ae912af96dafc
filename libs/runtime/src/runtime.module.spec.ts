import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '#platform/clock';
import { loadConfig, type AppConfig } from '#platform/config';
import type { Projection } from '#read-store/projections/projection';
import { createRuntime, type Runtime } from './runtime.module';
import { openStores, type Stores } from './stores';

const users: Projection = {
  name: 'users',
  collections: ['users'],
  handles: ['UserCreated'],
  async apply(event, tx) {
    await tx.collection('users').put({ _id: (event.data as { userId: string }).userId });
  },
};

describe('the runtime and the embedded read store', () => {
  let directory: string;
  let config: AppConfig;
  let stores: Stores;
  let runtime: Runtime | undefined;

  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'runtime-module-'));
    config = loadConfig({ DATA_DIR: directory, HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
    stores = await openStores(config);
  });

  afterEach(async () => {
    await runtime?.stopReactors();
    await runtime?.runner?.stop();
    runtime = undefined;
    await stores.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('given projections to run, when they have caught up, then the read store loads the rest in the background', async () => {
    await stores.events.appendToStream('user-u1', [{ type: 'UserCreated', data: { userId: 'u1' } }], 'no_stream');
    const loadInBackground = jest.spyOn(stores.reads, 'loadInBackground' as never);
    runtime = createRuntime({ config, stores, clock: systemClock, projections: [users], runProjections: true });
    expect(loadInBackground).not.toHaveBeenCalled();
    await runtime.runner!.start();
    await runtime.runner!.whenCaughtUp();
    await new Promise((resolve) => setImmediate(resolve));
    expect(loadInBackground).toHaveBeenCalledTimes(1);
  });

  it('given a catch-up at start over the budget of mapped pages, then the stores release them while it runs and never once it has caught up', async () => {
    await stores.close();
    config = loadConfig({ DATA_DIR: directory, HOST: '127.0.0.1', LOG_LEVEL: 'silent', REPLAY_MAPPED_MB: '1' });
    stores = await openStores(config);
    const events = (from: number) => Array.from({ length: 1200 }, (_, i) => ({ type: 'UserCreated', data: { userId: `u${from + i}` } }));
    await stores.events.appendToStream('user-many', events(0), 'no_stream');
    let releases = 0;
    const release = stores.releaseMappedPages!;
    stores.releaseMappedPages = async () => {
      releases += 1;
      await release();
    };
    runtime = createRuntime({ config, stores, clock: systemClock, projections: [users], runProjections: true });
    await runtime.runner!.start();
    await runtime.runner!.whenCaughtUp();
    // Two full batches of 500 in the catch-up, each followed by a release (this process maps more than 1 MB of files).
    expect(releases).toBe(2);
    // Live now: the service serves requests from the same maps.
    await stores.events.appendToStream('user-many', events(1200), 1199);
    expect(await runtime.runner!.waitFor((await stores.events.headPosition())!, 10_000)).toBe(true);
    expect(releases).toBe(2);
    expect(await stores.reads.collection('users').count()).toBe(2400);
  });

  it('given no projections to run (an API replica), then the read store loads the rest at once', () => {
    const loadInBackground = jest.spyOn(stores.reads, 'loadInBackground' as never);
    runtime = createRuntime({ config, stores, clock: systemClock, projections: [users], runProjections: false });
    expect(loadInBackground).toHaveBeenCalledTimes(1);
  });
});
