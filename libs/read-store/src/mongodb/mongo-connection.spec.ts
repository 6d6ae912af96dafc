import { MongoClient } from 'mongodb';
import { ReadStoreInputError, ReadStoreUnavailableError } from '../errors';
import {
  CONSISTENT_DB_OPTIONS,
  ConnectAttemptsExhausted,
  NotWritablePrimaryYet,
  connectWithRetry,
  consistentDb,
  openMongoDatabase,
  requireWritablePrimary,
} from './mongo-connection';

/** Connection rules testable without a server (the server-backed suites are in the adapters' specs). */

class FakeClient {
  closed = false;
  async connect(): Promise<this> {
    return this;
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

describe('connectWithRetry with a readiness check', () => {
  it('given a check failing twice (no primary elected yet), when connecting, then the third fresh client is returned and the others closed', async () => {
    const made: FakeClient[] = [];
    let checks = 0;
    const client = await connectWithRetry(
      () => {
        const next = new FakeClient();
        made.push(next);
        return next;
      },
      { attempts: 5, retryDelayMs: 1 },
      {
        ready: async () => {
          checks++;
          if (checks < 3) throw new Error('no primary yet');
        },
      },
    );
    expect(made).toHaveLength(3);
    expect(client).toBe(made[2]);
    expect(made.slice(0, 2).every((c) => c.closed)).toBe(true);
    expect(made[2].closed).toBe(false);
  });

  it('given a fatal check failure (a standalone server), then it is thrown at once, without retrying', async () => {
    const made: FakeClient[] = [];
    const fatal = new ReadStoreInputError('standalone');
    await expect(
      connectWithRetry(
        () => {
          const next = new FakeClient();
          made.push(next);
          return next;
        },
        { attempts: 5, retryDelayMs: 1 },
        { ready: async () => Promise.reject(fatal), fatal: (error) => error instanceof ReadStoreInputError },
      ),
    ).rejects.toBe(fatal);
    expect(made).toHaveLength(1);
    expect(made[0].closed).toBe(true);
  });

  it('given a check that never passes, then ConnectAttemptsExhausted says how many attempts and carries the last error', async () => {
    const last = new Error('still electing');
    const error = await connectWithRetry(
      () => new FakeClient(),
      { attempts: 3, retryDelayMs: 1 },
      { ready: async () => Promise.reject(last) },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConnectAttemptsExhausted);
    expect((error as ConnectAttemptsExhausted).attempts).toBe(3);
    expect((error as ConnectAttemptsExhausted).cause).toBe(last);
    expect((error as Error).message).toMatch(/^3 attempt\(s\) over \d+\.\d s failed; last: still electing$/);
  });
});

describe('requireWritablePrimary', () => {
  const standalone = () => new ReadStoreInputError('standalone');
  function fakeClient(hello: Record<string, unknown> | Error) {
    const command = jest.fn(async (_command: unknown, _options?: unknown) => {
      if (hello instanceof Error) throw hello;
      return hello;
    });
    return { client: { db: () => ({ command }) } as unknown as MongoClient, command };
  }

  it('asks hello of the primary, whatever the URL prefers', async () => {
    const { client, command } = fakeClient({ setName: 'rs0', isWritablePrimary: true });
    await requireWritablePrimary(client, standalone);
    expect(command).toHaveBeenCalledWith({ hello: 1 }, { readPreference: 'primary' });
  });

  it.each([
    ['a replica-set primary', { setName: 'rs0', isWritablePrimary: true }],
    ['a mongos router', { msg: 'isdbgrid', isWritablePrimary: true }],
    ['a load balancer', { serviceId: 'abc', isWritablePrimary: true }],
  ])('given %s, then it passes', async (_, hello) => {
    await expect(requireWritablePrimary(fakeClient(hello).client, standalone)).resolves.toBeUndefined();
  });

  it('given a standalone mongod, then the standalone error (fatal)', async () => {
    await expect(requireWritablePrimary(fakeClient({ isWritablePrimary: true }).client, standalone)).rejects.toBeInstanceOf(
      ReadStoreInputError,
    );
  });

  it('given a replica-set member that is not (yet) the writable primary, then NotWritablePrimaryYet (retried)', async () => {
    await expect(
      requireWritablePrimary(fakeClient({ setName: 'rs0', isWritablePrimary: false, secondary: true }).client, standalone),
    ).rejects.toBeInstanceOf(NotWritablePrimaryYet);
  });

  it('given no primary to select, then the server-selection error is passed on (retried)', async () => {
    const error = new Error('Server selection timed out after 5000 ms');
    await expect(requireWritablePrimary(fakeClient(error).client, standalone)).rejects.toBe(error);
  });
});

describe('consistentDb', () => {
  it('given a URL asking for secondary reads, local read concern and w=1, then reads and writes outside transactions are majority on the primary', async () => {
    const client = new MongoClient(
      'mongodb://127.0.0.1:1/?replicaSet=rs0&readPreference=secondary&readConcernLevel=local&w=1&serverSelectionTimeoutMS=100',
    );
    try {
      const collection = consistentDb(client, 'docs').collection('_checkpoints');
      expect(collection.readPreference?.mode).toBe('primary');
      expect(collection.readConcern?.level).toBe('majority');
      expect(collection.writeConcern?.w).toBe('majority');
      // The client itself keeps the URL's settings: only the store's database overrides them.
      expect(client.db('docs').readPreference.mode).toBe('secondary');
    } finally {
      await client.close();
    }
  });

  it('has options that cannot be changed by a caller', () => {
    expect(Object.isFrozen(CONSISTENT_DB_OPTIONS)).toBe(true);
  });
});

describe('openMongoDatabase', () => {
  const errors = {
    invalid: (message: string) => new ReadStoreInputError(message),
    unavailable: (message: string, cause: unknown) => new ReadStoreUnavailableError(message, cause),
  };

  it('given no server to select, when every attempt failed, then the unavailable error counts the attempts and says what to check', async () => {
    const error = await openMongoDatabase(
      'mongodb://alice:s3cr3t@127.0.0.1:1/db?serverSelectionTimeoutMS=50&connectTimeoutMS=50',
      { attempts: 2, retryDelayMs: 1 },
      errors,
      'test',
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ReadStoreUnavailableError);
    expect((error as Error).message).toMatch(/cannot connect to MongoDB: 2 attempt\(s\) over/);
    expect((error as Error).message).toMatch(/isWritablePrimary/);
    expect((error as Error).message).not.toContain('s3cr3t');
  });

  it('given a fatal readiness failure, then that error is thrown as it is', async () => {
    const fatal = new ReadStoreInputError('standalone');
    jest.spyOn(MongoClient.prototype, 'connect').mockImplementation(async function (this: MongoClient) {
      return this;
    });
    try {
      await expect(
        openMongoDatabase('mongodb://127.0.0.1:1/db', { attempts: 3, retryDelayMs: 1 }, errors, 'test', {
          ready: async () => Promise.reject(fatal),
          fatal: (error) => error === fatal,
        }),
      ).rejects.toBe(fatal);
    } finally {
      jest.restoreAllMocks();
    }
  });
});
