import { randomBytes } from 'node:crypto';
import { Long, MongoClient, MongoNetworkError, MongoServerError, ObjectId } from 'mongodb';
import { MongoDBContainer, type StartedMongoDBContainer } from '@testcontainers/mongodb';
import { configuredUrl, describeWith } from '../../../../test/support/external-services';
import { DuplicateKeyError, ReadStoreInputError, ReadStoreTransactionTooLargeError, ReadStoreUnavailableError } from '../errors';
import { decodeCursor, filterAfter, normalizeSort } from '../pagination';
import { readStoreContract } from '../read-store.contract';
import type { ReadStoreTransaction } from '../read-store.port';
import { checkMongoUrl, connectWithRetry, urlHasOption } from './mongo-connection';
import { duplicateKeyError, translateError } from './mongo-errors';
import { MongoReadStore } from './mongo-read-store';
import { checkUpdate, indexName, toPlain } from './mongo-values';

const SECRET = 's3cr3t-Pa55';

describe('MongoDB read store without a server', () => {
  describe('connection URL', () => {
    it.each([
      ['an empty URL', '', /empty/],
      ['another scheme', `http://alice:${SECRET}@example.com/db`, /must start with "mongodb:\/\/"/],
      ['no host', `mongodb://alice:${SECRET}@`, /no host/],
      ['an empty host in the list', `mongodb://alice:${SECRET}@a:27017,,b:27017/db`, /no host/],
      ['an invalid database name', `mongodb://alice:${SECRET}@localhost/bad.name`, /database name/],
      ['an unknown option', `mongodb://alice:${SECRET}@localhost/db?notAnOption=1`, /not valid: option notanoption is not supported/i],
      ['a port out of range', `mongodb://alice:${SECRET}@localhost:99999/db`, /not valid/],
      ['an unescaped character in the password', `mongodb://alice:${SECRET}/x@localhost/db`, /not valid/],
    ])('given %s, when connecting, then ReadStoreInputError names the problem without the credentials', async (_, url, problem) => {
      const error = await MongoReadStore.connect(url).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ReadStoreInputError);
      expect((error as Error).message).toMatch(problem);
      expect((error as Error).message).not.toContain(SECRET);
      expect((error as Error).message).not.toContain('x@localhost');
    });

    it('given an invalid database option, when connecting, then ReadStoreInputError', async () => {
      await expect(MongoReadStore.connect('mongodb://localhost', { database: 'a/b' })).rejects.toThrow(ReadStoreInputError);
      await expect(MongoReadStore.connect('mongodb://localhost', { database: 'x'.repeat(64) })).rejects.toThrow(/64 bytes/);
    });

    it('given a URL, then the database comes from its path when there is one', () => {
      expect(checkMongoUrl('mongodb://localhost:27017/docs?replicaSet=rs0').database).toBe('docs');
      expect(checkMongoUrl(`mongodb://alice:${SECRET}@h1:1,h2:2/?replicaSet=rs0`).database).toBeUndefined();
      expect(checkMongoUrl('mongodb://localhost').database).toBeUndefined();
      expect(checkMongoUrl('mongodb+srv://cluster.example.com/my%2Ddb').database).toBe('my-db');
    });

    it('given a URL with credentials, then redact removes the password but keeps the rest of a message', () => {
      const checked = checkMongoUrl(`mongodb://alice:${encodeURIComponent('p@ss/word')}@localhost/db`);
      expect(checked.redact('auth failed for p@ss/word and p%40ss%2Fword at localhost')).toBe('auth failed for *** and *** at localhost');
    });

    it('given options in the query string, then urlHasOption finds them case-insensitively', () => {
      expect(urlHasOption('mongodb://h/db?ServerSelectionTimeoutMS=10&x=1', 'serverSelectionTimeoutMS')).toBe(true);
      expect(urlHasOption('mongodb://h/db', 'serverSelectionTimeoutMS')).toBe(false);
    });
  });

  describe('connecting with retries', () => {
    class FakeClient {
      closed = false;
      constructor(private readonly fails: boolean) {}
      async connect(): Promise<this> {
        if (this.fails) throw new Error('connection refused');
        return this;
      }
      async close(): Promise<void> {
        this.closed = true;
      }
    }

    it('given a first attempt that fails, when retrying, then a new client is used and the failed one is closed', async () => {
      const made: FakeClient[] = [];
      const client = await connectWithRetry(
        () => {
          const next = new FakeClient(made.length === 0);
          made.push(next);
          return next;
        },
        { attempts: 3, retryDelayMs: 1 },
      );
      expect(made).toHaveLength(2);
      expect(client).toBe(made[1]);
      expect(made[0].closed).toBe(true);
      expect(made[1].closed).toBe(false);
    });

    it('given every attempt failing, then the last error is thrown after the given number of attempts', async () => {
      const made: FakeClient[] = [];
      await expect(
        connectWithRetry(
          () => {
            const next = new FakeClient(true);
            made.push(next);
            return next;
          },
          { attempts: 3, retryDelayMs: 1 },
        ),
      ).rejects.toThrow('connection refused');
      expect(made).toHaveLength(3);
      expect(made.every((c) => c.closed)).toBe(true);
    });

    it('given no server listening, when connecting, then ReadStoreUnavailableError without the credentials', async () => {
      const url = `mongodb://alice:${SECRET}@127.0.0.1:1/db?serverSelectionTimeoutMS=100&connectTimeoutMS=100`;
      const error = await MongoReadStore.connect(url, { attempts: 2, retryDelayMs: 1 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ReadStoreUnavailableError);
      expect((error as Error).message).toMatch(/cannot connect to MongoDB/);
      expect((error as Error).message).not.toContain(SECRET);
    });
  });

  describe('duplicate key errors', () => {
    it('given an 11000 error with keyPattern and keyValue, then DuplicateKeyError names the index fields and key', () => {
      const error = duplicateKeyError(
        {
          code: 11000,
          errmsg: 'E11000 duplicate key error collection: db.pages index: spaceId_1_slug_1 dup key: { spaceId: "s1", slug: "intro" }',
          keyPattern: { spaceId: 1, slug: 1 },
          keyValue: { spaceId: 's1', slug: 'intro' },
        },
        'pages',
      );
      expect(error).toBeInstanceOf(DuplicateKeyError);
      expect(error).toMatchObject({ collection: 'pages', index: 'spaceId,slug', key: { spaceId: 's1', slug: 'intro' } });
    });

    it('given a duplicate _id, then the index is _id', () => {
      const error = duplicateKeyError({ code: 11000, keyPattern: { _id: 1 }, keyValue: { _id: 'p1' } }, 'pages');
      expect(error).toMatchObject({ index: '_id', key: { _id: 'p1' } });
    });

    it('given an 11000 error without keyPattern, then the fields come from the index name in the message', () => {
      const message = (index: string) => `E11000 duplicate key error collection: db.pages index: ${index} dup key: { : "x" }`;
      expect(duplicateKeyError({ code: 11000, message: message('space_id_1_slug_-1') }, 'pages')?.index).toBe('space_id,slug');
      expect(duplicateKeyError({ code: 11000, message: message('_id_') }, 'pages')?.index).toBe('_id');
      expect(duplicateKeyError({ code: 11000, message: message('custom') }, 'pages')?.index).toBe('custom');
    });

    it('given another error, then it is not a duplicate key', () => {
      expect(duplicateKeyError({ code: 112, keyValue: { a: 1 } }, 'pages')).toBeUndefined();
      expect(duplicateKeyError(new Error('E11000'), 'pages')).toBeUndefined();
      expect(duplicateKeyError(undefined, 'pages')).toBeUndefined();
    });

    it('given a driver MongoServerError 11000, then translateError gives DuplicateKeyError', () => {
      const serverError = new MongoServerError({
        message: 'E11000 duplicate key error',
        code: 11000,
        keyPattern: { slug: 1 },
        keyValue: { slug: 'a' },
      });
      const translated = translateError(serverError, 'spaces');
      expect(translated).toBeInstanceOf(DuplicateKeyError);
      expect(translated).toMatchObject({ collection: 'spaces', index: 'slug', key: { slug: 'a' } });
    });
  });

  describe('error translation', () => {
    it('given an update changing _id on the server (code 66), then ReadStoreInputError', () => {
      const serverError = new MongoServerError({
        message: "Performing an update on the path '_id' would modify the immutable field '_id'",
        code: 66,
      });
      expect(translateError(serverError, 'pages')).toBeInstanceOf(ReadStoreInputError);
    });

    it('given an unknown query operator (code 2), then ReadStoreInputError', () => {
      expect(translateError(new MongoServerError({ message: 'unknown operator: $nope', code: 2 }), 'pages')).toBeInstanceOf(
        ReadStoreInputError,
      );
    });

    it('given a network error, then ReadStoreUnavailableError, redacted', () => {
      const translated = translateError(new MongoNetworkError(`socket closed (${SECRET})`), 'pages', (t) => t.split(SECRET).join('***'));
      expect(translated).toBeInstanceOf(ReadStoreUnavailableError);
      expect((translated as Error).message).not.toContain(SECRET);
    });

    it('given a primary stepping down (code 189), then ReadStoreUnavailableError', () => {
      expect(translateError(new MongoServerError({ message: 'stepped down', code: 189 }))).toBeInstanceOf(ReadStoreUnavailableError);
    });

    it('given a transaction too large or too long, then ReadStoreTransactionTooLargeError; a bare WriteConflict or BSON size error is not', () => {
      for (const code of [257, 290, 355]) {
        expect(translateError(new MongoServerError({ code, errmsg: 'too large' }))).toBeInstanceOf(ReadStoreTransactionTooLargeError);
      }
      const exhausted = new MongoServerError({ code: 112, errmsg: 'WriteConflict' });
      exhausted.addErrorLabel('TransientTransactionError');
      expect(translateError(exhausted)).toBeInstanceOf(ReadStoreTransactionTooLargeError);
      const bare = new MongoServerError({ code: 112, errmsg: 'WriteConflict' });
      expect(translateError(bare)).toBe(bare);
      expect(translateError(new MongoServerError({ code: 10334, errmsg: 'BSONObj size' }), 'pages')).toBeInstanceOf(ReadStoreInputError);
    });

    it('given an error that is not the driver’s, then it passes through unchanged', () => {
      const own = new Error('from the work function');
      expect(translateError(own, 'pages')).toBe(own);
    });
  });

  describe('update checks', () => {
    it('given updates that change _id, then ReadStoreInputError before reaching the server', () => {
      expect(() => checkUpdate({ $set: { _id: 'other' } }, 'p1')).toThrow(ReadStoreInputError);
      expect(() => checkUpdate({ $unset: { _id: '' } }, 'p1')).toThrow(ReadStoreInputError);
      expect(() => checkUpdate({ $rename: { title: '_id' } }, 'p1')).toThrow(ReadStoreInputError);
      expect(() => checkUpdate({ $inc: { '_id.n': 1 } })).toThrow(ReadStoreInputError);
    });

    it('given a $set of _id to the document’s own id, then it is allowed', () => {
      expect(() => checkUpdate({ $set: { _id: 'p1', title: 'T' } }, 'p1')).not.toThrow();
    });

    it('given a replacement document or no operator, then ReadStoreInputError', () => {
      expect(() => checkUpdate({ title: 'T' })).toThrow(ReadStoreInputError);
      expect(() => checkUpdate({})).toThrow(ReadStoreInputError);
    });
  });

  it('given index fields, then the index name is MongoDB’s default naming', () => {
    expect(indexName({ spaceId: 1, slug: -1 })).toBe('spaceId_1_slug_-1');
    expect(indexName({ 'meta.key': 1 })).toBe('meta.key_1');
  });

  it('given driver values, then toPlain turns them into plain JSON', () => {
    const id = new ObjectId();
    const at = new Date('2024-05-01T10:00:00.000Z');
    expect(toPlain({ _id: 'x', ref: id, at, n: Long.fromNumber(42), list: [{ at }], nested: { ok: true, none: null } })).toEqual({
      _id: 'x',
      ref: id.toHexString(),
      at: '2024-05-01T10:00:00.000Z',
      n: 42,
      list: [{ at: '2024-05-01T10:00:00.000Z' }],
      nested: { ok: true, none: null },
    });
  });
});

/** The replica set started by testcontainers announces an internal host name: connect directly. */
function withDirectConnection(url: string): string {
  if (urlHasOption(url, 'directConnection')) return url;
  if (url.includes('?')) return `${url}&directConnection=true`;
  const afterScheme = url.indexOf('://') + 3;
  return url.indexOf('/', afterScheme) < 0 ? `${url}/?directConnection=true` : `${url}?directConnection=true`;
}

describeWith('mongodb')('MongoDB read store', () => {
  let container: StartedMongoDBContainer | undefined;
  let url = '';
  let admin: MongoClient | undefined;
  const databases = new Set<string>();
  const open = async (): Promise<MongoReadStore> => {
    const database = `rs_test_${randomBytes(6).toString('hex')}`;
    databases.add(database);
    return MongoReadStore.connect(url, { database });
  };

  beforeAll(async () => {
    const configured = configuredUrl('mongodb');
    if (configured) {
      url = configured;
    } else {
      container = await new MongoDBContainer('mongo:8').start();
      url = withDirectConnection(container.getConnectionString());
    }
    admin = await MongoClient.connect(url);
  }, 180_000);

  afterEach(async () => {
    for (const database of databases) await admin?.db(database).dropDatabase();
    databases.clear();
  });

  afterAll(async () => {
    await admin?.close();
    await container?.stop();
  });

  readStoreContract('mongodb', open);

  describe('MongoDB specifics', () => {
    let store: MongoReadStore;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    it('given a sort index, when paging after a cursor, then explain shows index scans and no blocking SORT', async () => {
      const spaces = store.collection('spaces');
      await store.ensureIndex('spaces', { fields: { organizationId: 1, title: 1, _id: 1 } });
      for (let i = 0; i < 200; i++)
        await spaces.insert({ _id: `s${String(i).padStart(3, '0')}`, organizationId: i % 2 ? 'o1' : 'o2', title: `T${i % 17}` });
      const filter = { organizationId: 'o1' };
      const first = await spaces.find(filter, { sort: { title: 1 }, limit: 10 });
      const sort = normalizeSort({ title: 1 });
      const query = filterAfter(filter, sort, decodeCursor(first.next!, sort));
      const plan = await admin!
        .db(store.databaseName)
        .collection('spaces')
        .find(query)
        .sort(Object.fromEntries(sort))
        .limit(11)
        .explain('queryPlanner');
      const stages = JSON.stringify(plan.queryPlanner.winningPlan);
      expect(stages).toContain('IXSCAN');
      expect(stages).not.toMatch(/"stage":"SORT"/);
      expect(stages).not.toContain('COLLSCAN');
      // Later pages carry the count: the same total without counting again.
      const second = await spaces.find(filter, { sort: { title: 1 }, limit: 10, after: first.next });
      expect(second.count).toBe(first.count);
    });

    it('given a store, then each read-store collection is a MongoDB collection of its database', async () => {
      await store.collection('spaces').insert({ _id: 's1', title: 'One' });
      const raw = await admin!
        .db(store.databaseName)
        .collection('spaces')
        .findOne({ _id: 's1' as never });
      expect(raw).toEqual({ _id: 's1', title: 'One' });
      expect(await store.listCollections()).toEqual(['spaces']);
    });

    it('given a unique index whose options change, when ensured again, then the index is replaced', async () => {
      const pages = store.collection('pages');
      await store.ensureIndex('pages', { fields: { slug: 1 }, unique: true });
      await pages.insert({ _id: 'a', slug: 'x', deletedAt: '2024-01-01T00:00:00.000Z' });
      await store.ensureIndex('pages', { fields: { slug: 1 }, unique: true, partial: { deletedAt: null } });
      await pages.insert({ _id: 'b', slug: 'x', deletedAt: null });
      await expect(pages.insert({ _id: 'c', slug: 'x', deletedAt: null })).rejects.toBeInstanceOf(DuplicateKeyError);
      const indexes = await admin!.db(store.databaseName).collection('pages').listIndexes().toArray();
      expect(indexes.map((i) => i.name).sort()).toEqual(['_id_', 'slug_1']);
    });

    it('given a duplicate inside a transaction that the work catches, then later operations fail fast and nothing commits', async () => {
      const spaces = store.collection('spaces');
      await spaces.insert({ _id: 's1', title: 'One' });
      const attempt = store.transaction(async (tx) => {
        await tx.collection('spaces').put({ _id: 's2', title: 'Two' });
        await tx
          .collection('spaces')
          .insert({ _id: 's1', title: 'Again' })
          .catch((error: unknown) => expect(error).toBeInstanceOf(DuplicateKeyError));
        await tx.collection('spaces').put({ _id: 's3', title: 'Three' });
      });
      await expect(attempt).rejects.toThrow(/aborted by an earlier failed operation/);
      expect(await spaces.get('s2')).toBeNull();
      expect(await spaces.get('s3')).toBeNull();
    });

    it('given a transaction, when its object is used after it returned, then ReadStoreInputError', async () => {
      let leaked: ReadStoreTransaction | undefined;
      await store.transaction(async (tx) => {
        leaked = tx;
      });
      await expect(leaked!.collection('spaces').get('s1')).rejects.toBeInstanceOf(ReadStoreInputError);
    });

    it('given a reachable server, then health is ok; once closed, it is not', async () => {
      expect(await store.health()).toEqual({ ok: true });
      await store.close();
      expect((await store.health()).ok).toBe(false);
    });
  });
});
