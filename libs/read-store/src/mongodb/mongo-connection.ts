import { setTimeout as sleep } from 'node:timers/promises';
import {
  MongoClient,
  MongoServerSelectionError,
  ReadConcern,
  ReadPreference,
  WriteConcern,
  type Db,
  type DbOptions,
  type MongoClientOptions,
} from 'mongodb';

/**
 * Connection plumbing shared by the MongoDB read store and the GridFS blob store: connection-string
 * checks that never echo credentials, and a connect loop that replaces a client whose `connect()`
 * failed instead of reusing it.
 */

export const DEFAULT_DATABASE = 'docs_platform';

export interface CheckedMongoUrl {
  /** The database named in the URL path, when there is one. */
  database?: string;
  /** Removes the URL's credentials from a text (an error message, typically). */
  redact(text: string): string;
}

export class MongoUrlProblem extends Error {
  override readonly name = 'MongoUrlProblem';
}

const SCHEMES = ['mongodb://', 'mongodb+srv://'];
/** Characters MongoDB refuses in database names (any platform). */
const BAD_DATABASE_CHARACTERS = /[/\\. "$*<>:|?\0]/;

/**
 * Checks the shape of a MongoDB connection string. Throws `MongoUrlProblem` naming the problem;
 * the message never contains the URL nor its credentials.
 */
export function checkMongoUrl(url: unknown): CheckedMongoUrl {
  if (typeof url !== 'string' || url.trim() === '') {
    throw new MongoUrlProblem('MongoDB URL is empty');
  }
  const scheme = SCHEMES.find((candidate) => url.toLowerCase().startsWith(candidate));
  if (!scheme) {
    throw new MongoUrlProblem('MongoDB URL must start with "mongodb://" or "mongodb+srv://"');
  }
  const rest = url.slice(scheme.length);
  const queryAt = rest.indexOf('?');
  const beforeQuery = queryAt < 0 ? rest : rest.slice(0, queryAt);
  const at = beforeQuery.lastIndexOf('@');
  const userInfo = at < 0 ? '' : beforeQuery.slice(0, at);
  const hostAndPath = beforeQuery.slice(at + 1);
  const slash = hostAndPath.indexOf('/');
  const hosts = slash < 0 ? hostAndPath : hostAndPath.slice(0, slash);
  const path = slash < 0 ? '' : hostAndPath.slice(slash + 1);

  const secrets = secretsOf(userInfo);
  const redact = (text: string): string => redactText(text, secrets);

  if (hosts === '' || hosts.split(',').some((host) => host.trim() === '')) {
    throw new MongoUrlProblem('MongoDB URL has no host (or an empty entry in its host list)');
  }
  if (at >= 0 && userInfo === '') {
    throw new MongoUrlProblem('MongoDB URL has an "@" but no user name before it');
  }
  let database: string | undefined;
  if (path !== '') {
    try {
      database = decodeURIComponent(path);
    } catch {
      throw new MongoUrlProblem('MongoDB URL has a badly percent-encoded database name');
    }
    const problem = databaseNameProblem(database);
    if (problem) throw new MongoUrlProblem(`MongoDB URL: ${problem}`);
  }

  // The driver's own parser catches what is left (unknown options, bad ports, unescaped characters).
  try {
    new MongoClient(url, { serverSelectionTimeoutMS: 1 });
  } catch (error) {
    throw new MongoUrlProblem(`MongoDB URL is not valid: ${redact(messageOf(error))}`);
  }
  return { database, redact };
}

/** Why `name` cannot be a MongoDB database name, or undefined when it can. */
export function databaseNameProblem(name: string): string | undefined {
  if (name === '') return 'the database name is empty';
  if (Buffer.byteLength(name, 'utf8') >= 64) return 'the database name is 64 bytes or longer';
  if (BAD_DATABASE_CHARACTERS.test(name)) {
    return 'the database name contains a character MongoDB refuses (/\\. "$*<>:|? or NUL)';
  }
  return undefined;
}

/** Whether the URL's query string sets this option (names are case-insensitive). */
export function urlHasOption(url: string, option: string): boolean {
  const queryAt = url.indexOf('?');
  if (queryAt < 0) return false;
  return url
    .slice(queryAt + 1)
    .split('&')
    .some((pair) => pair.split('=')[0].toLowerCase() === option.toLowerCase());
}

export interface ConnectRetryOptions {
  /** Connection attempts before giving up; default 5. */
  attempts?: number;
  /** Delay before the second attempt, doubled after each failure (capped at 5 s); default 250 ms. */
  retryDelayMs?: number;
}

export interface ConnectReadiness<C> {
  /**
   * Run on each freshly connected client; a rejection counts as a failed attempt (so a replica set
   * still electing its primary is waited for within the same bounded retries).
   */
  ready?: (client: C) => Promise<void>;
  /** Errors retrying cannot cure (a standalone server, say): thrown at once. Default: none. */
  fatal?: (error: unknown) => boolean;
}

/** Every attempt failed: says how many and for how long, and carries the last attempt's error. */
export class ConnectAttemptsExhausted extends Error {
  override readonly name = 'ConnectAttemptsExhausted';
  constructor(
    readonly attempts: number,
    readonly elapsedMs: number,
    override readonly cause: unknown,
  ) {
    super(`${attempts} attempt(s) over ${(elapsedMs / 1000).toFixed(1)} s failed; last: ${messageOf(cause)}`);
  }
}

/**
 * Connects a client made by `create`, retrying with exponential backoff. A client whose `connect()`
 * (or `ready` check) failed is closed and discarded: the next attempt uses a fresh one from
 * `create`. Throws `ConnectAttemptsExhausted` when every attempt failed, and a `fatal` error at once.
 */
export async function connectWithRetry<C extends { connect(): Promise<unknown>; close(): Promise<void> }>(
  create: () => C,
  options: ConnectRetryOptions = {},
  readiness: ConnectReadiness<C> = {},
): Promise<C> {
  const attempts = Math.max(1, Math.floor(options.attempts ?? 5));
  let delay = Math.max(0, options.retryDelayMs ?? 250);
  const started = Date.now();
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const client = create();
    try {
      await client.connect();
      if (readiness.ready) await readiness.ready(client);
      return client;
    } catch (error) {
      lastError = error;
      await client.close().catch(() => undefined);
      if (readiness.fatal?.(error)) throw error;
    }
    if (attempt < attempts) {
      await sleep(delay);
      delay = Math.min(delay * 2, 5000);
    }
  }
  throw new ConnectAttemptsExhausted(attempts, Date.now() - started, lastError);
}

/** Driver options every adapter uses, unless the URL says otherwise. */
export function defaultClientOptions(url: string): MongoClientOptions {
  const options: MongoClientOptions = {};
  if (!urlHasOption(url, 'serverSelectionTimeoutMS')) options.serverSelectionTimeoutMS = 5000;
  if (!urlHasOption(url, 'appName')) options.appName = 'docs-platform';
  return options;
}

/**
 * Reads and writes outside transactions, in the read store and GridFS alike (docs/distributed.md,
 * Read-your-writes): majority read concern, so that nothing read (the projector's checkpoint, a
 * read model, a blob) can be rolled back by a failover; primary read preference, so that a read
 * made once the checkpoint has passed a write sees that write whatever `readPreference` the URL
 * sets (a secondary may lag); majority write concern, so that a write is seen by majority reads
 * once acknowledged. They override the URL's `readConcernLevel`, `readPreference` and `w`.
 */
export const CONSISTENT_DB_OPTIONS: Readonly<DbOptions> = Object.freeze({
  readConcern: new ReadConcern('majority'),
  readPreference: ReadPreference.primary,
  writeConcern: new WriteConcern('majority'),
});

/** The database with `CONSISTENT_DB_OPTIONS` (transactions set their own options). */
export function consistentDb(client: MongoClient, database: string): Db {
  return client.db(database, { ...CONSISTENT_DB_OPTIONS });
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

function secretsOf(userInfo: string): string[] {
  if (userInfo === '') return [];
  // The user name is not a secret (and redacting a short one would mangle messages); the password is.
  const secrets = new Set<string>([userInfo]);
  const colon = userInfo.indexOf(':');
  if (colon >= 0 && colon < userInfo.length - 1) secrets.add(userInfo.slice(colon + 1));
  for (const secret of [...secrets]) {
    try {
      secrets.add(decodeURIComponent(secret));
    } catch {
      // not percent-encoded correctly: the raw form is already in the set
    }
  }
  // Longest first, so that the whole user info is replaced before its parts.
  return [...secrets].sort((a, b) => b.length - a.length);
}

function redactText(text: string, secrets: string[]): string {
  let result = text;
  for (const secret of secrets) result = result.split(secret).join('***');
  return result;
}

const PING_TIMEOUT_MS = 2000;

/** Health of a MongoDB connection: a ping answered within two seconds. Shared by the read store and GridFS. */
export async function pingMongo(db: Db, redact: (text: string) => string): Promise<{ ok: boolean; detail?: string }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      db.command({ ping: 1 }, { timeoutMS: PING_TIMEOUT_MS }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
        timer.unref();
      }),
    ]);
    return { ok: true };
  } catch (error) {
    return { ok: false, detail: `MongoDB ping failed: ${redact(messageOf(error))}` };
  } finally {
    if (timer) clearTimeout(timer);
  }
}

export interface OpenedDatabase {
  client: MongoClient;
  database: string;
  redact: (text: string) => string;
}

/**
 * The connect sequence both MongoDB adapters share: check the URL, pick and check the database
 * name, connect with retries on fresh clients. Errors are built by the caller, so each adapter
 * reports them in its own port's terms.
 */
export async function openMongoDatabase(
  url: string,
  options: ConnectRetryOptions & { database?: string; clientOptions?: MongoClientOptions },
  errors: { invalid(message: string): Error; unavailable(message: string, cause: unknown): Error },
  label: string,
  readiness: ConnectReadiness<MongoClient> = {},
): Promise<OpenedDatabase> {
  let checked: CheckedMongoUrl;
  try {
    checked = checkMongoUrl(url);
  } catch (error) {
    if (error instanceof MongoUrlProblem) throw errors.invalid(error.message);
    throw error;
  }
  const database = options.database ?? checked.database ?? DEFAULT_DATABASE;
  const problem = databaseNameProblem(database);
  if (problem) throw errors.invalid(`${label}: ${problem}`);
  const clientOptions: MongoClientOptions = { ...defaultClientOptions(url), ...options.clientOptions };
  try {
    const client = await connectWithRetry(() => new MongoClient(url, clientOptions), options, readiness);
    return { client, database, redact: checked.redact };
  } catch (error) {
    if (readiness.fatal?.(error)) throw error;
    const cause = error instanceof ConnectAttemptsExhausted ? error.cause : error;
    throw errors.unavailable(`cannot connect to MongoDB: ${checked.redact(messageOf(error))}${hintFor(cause)}`, cause);
  }
}

/** What to check when the last attempt could not find a server to talk to. */
function hintFor(error: unknown): string {
  if (!(error instanceof MongoServerSelectionError)) return '';
  return ' (is the server up, and, for a replica set, initiated with a primary elected? `db.hello().isWritablePrimary` must be true)';
}

/**
 * Waits for a writable primary and refuses a standalone server. Run inside the connect retries: a
 * replica set just initiated (or failing over) has no primary for a few seconds, and selecting
 * the primary for `hello` fails with a server-selection error until it has one, which is retried.
 * A standalone mongod throws `standalone()` (fatal: transactions will never work there).
 */
export async function requireWritablePrimary(client: Pick<MongoClient, 'db'>, standalone: () => Error): Promise<void> {
  const hello = await client.db('admin').command({ hello: 1 }, { readPreference: 'primary' });
  const replicaSet = typeof hello.setName === 'string' && hello.setName !== '';
  const router = hello.msg === 'isdbgrid';
  const loadBalanced = hello.serviceId !== undefined;
  if (!replicaSet && !router && !loadBalanced) throw standalone();
  // Selected as primary yet no longer writable: it is stepping down; try again.
  if (replicaSet && hello.isWritablePrimary !== true) throw new NotWritablePrimaryYet();
}

/** The selected member answered `hello` without being the writable primary (a step-down under way). */
export class NotWritablePrimaryYet extends Error {
  override readonly name = 'NotWritablePrimaryYet';
  constructor() {
    super('the replica set has no writable primary yet');
  }
}
