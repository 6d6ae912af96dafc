import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '#platform/config';
import { openStores } from './stores';

const directories: string[] = [];
afterAll(() => directories.forEach((made) => rmSync(made, { recursive: true, force: true })));
function embeddedConfig() {
  const dataDir = mkdtempSync(join(tmpdir(), 'stores-'));
  directories.push(dataDir);
  return loadConfig({ DATA_DIR: dataDir });
}

describe('openStores in embedded mode', () => {
  it('given embedded stores, when their mapped pages are released, then the log and the read models are still there and writable', async () => {
    const stores = await openStores(embeddedConfig());
    await stores.events.appendToStream('space-a', [{ type: 'SpaceCreated', data: { title: 'A' } }], 'no_stream');
    await stores.reads.collection('spaces').put({ _id: 'a', title: 'A' });
    await stores.releaseMappedPages!();
    await stores.events.appendToStream('space-a', [{ type: 'SpaceRenamed', data: { title: 'B' } }], 0);
    await stores.reads.collection('spaces').put({ _id: 'b', title: 'B' });
    expect((await stores.events.readAll()).map((event) => event.type)).toEqual(['SpaceCreated', 'SpaceRenamed']);
    expect((await stores.reads.collection('spaces').find({})).items.map((doc) => doc._id)).toEqual(['a', 'b']);
    await stores.close();
  });
});
