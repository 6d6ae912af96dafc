import { MemoryReadStore } from './memory-read-store';
import type { ReadStoreChange } from '../read-store.port';

/** What the memory read store tells of its commits and of the reads outside transactions (the response cache's inputs). */
describe('memory read store: change notifications', () => {
  let store: MemoryReadStore;
  let changes: ReadStoreChange[];
  beforeEach(async () => {
    store = new MemoryReadStore();
    await store.collection('docs').put({ _id: 'a', n: 1 });
    changes = [];
    store.onChange((change) => changes.push(change));
  });
  afterEach(() => store.close());

  it('given a transaction writing two collections, then one report names each document before and after', async () => {
    await store.transaction(async (tx) => {
      await tx.collection('docs').update('a', { $set: { n: 2 } });
      await tx.collection('docs').put({ _id: 'b', n: 1 });
      await tx.collection('other').delete('missing');
      await tx.collection('other').put({ _id: 'x' });
    });
    expect(changes).toEqual([
      new Map([
        [
          'docs',
          [
            { id: 'a', before: { _id: 'a', n: 1 }, after: { _id: 'a', n: 2 } },
            { id: 'b', before: null, after: { _id: 'b', n: 1 } },
          ],
        ],
        ['other', [{ id: 'x', before: null, after: { _id: 'x' } }]],
      ]),
    ]);
  });

  it('given a document deleted, then its report has it before and null after', async () => {
    await store.collection('docs').delete('a');
    expect(changes).toEqual([new Map([['docs', [{ id: 'a', before: { _id: 'a', n: 1 }, after: null }]]])]);
  });

  it('given a listener, then it has been told of a commit by the time the write resolves', async () => {
    let seen = false;
    store.onChange(() => (seen = true));
    await store.collection('docs').put({ _id: 'c' });
    expect(seen).toBe(true);
  });

  it('given collections dropped, then each is reported as a whole', async () => {
    await store.dropCollections(['docs']);
    expect(changes).toEqual([new Map([['docs', null]])]);
  });

  it('given a listener stopped, then it is told nothing more', async () => {
    const told: ReadStoreChange[] = [];
    const stop = store.onChange((change) => told.push(change));
    stop();
    await store.collection('docs').put({ _id: 'c' });
    expect(told).toEqual([]);
  });

  it('given reads outside transactions, then each is observed: by id, or as a query with its filter; reads inside transactions are not', async () => {
    const reads: unknown[] = [];
    store.observeReads((collection, id, filter) => reads.push([collection, id, filter]));
    await store.collection('docs').get('a');
    await store.collection('docs').find({ n: 1 });
    await store.collection('docs').count();
    await store.transaction(async (tx) => void (await tx.collection('docs').get('a')));
    expect(reads).toEqual([
      ['docs', 'a', undefined],
      ['docs', null, { n: 1 }],
      ['docs', null, undefined],
    ]);
  });
});
