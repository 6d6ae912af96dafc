/**
 * The behaviour every `ReadStore` adapter must show. Run it from an adapter's spec:
 *
 *   readStoreContract('memory', async () => new MemoryReadStore());
 *
 * `open` must return a fresh, empty store; each test closes the store it opened.
 * Test-only: not exported from the library's index.
 */
import type { ReadStore } from './read-store.port';
import type { ContractSubject, Item } from './read-store-fixtures.contract';
import { documentsContract } from './read-store-documents.contract';
import { queriesContract } from './read-store-queries.contract';
import { collectionsContract } from './read-store-collections.contract';
import { transactionsContract } from './read-store-transactions.contract';

export function readStoreContract(adapterName: string, open: () => Promise<ReadStore>): void {
  describe(`ReadStore contract (${adapterName})`, () => {
    const subject = {} as ContractSubject;

    beforeEach(async () => {
      subject.store = await open();
      subject.items = subject.store.collection<Item>('items');
    });

    afterEach(async () => {
      await subject.store.close();
    });

    documentsContract(subject);
    queriesContract(subject);
    collectionsContract(subject);
    transactionsContract(subject);
  });
}
