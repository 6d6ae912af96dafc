import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient, type Db, type MongoClientOptions } from 'mongodb';

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

/**
 * Connects a client made by `create`, retrying with exponential backoff. A client whose `connect()`
 * failed is closed and discarded: the next attempt uses a fresh one from `create`. Throws the last
 * attempt's error when every attempt failed.
 */
export async function connectWithRetry<C extends { connect(): Promise<unknown>; close(): Promise<void> }>(
  create: () => C,
  options: ConnectRetryOptions = {},
): Promise<C> {
  const attempts = Math.max(1, Math.floor(options.attempts ?? 5));
  let delay = Math.max(0, options.retryDelayMs ?? 250);
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const client = create();
    try {
      await client.connect();
      return client;
    } catch (error) {
      lastError = error;
      await client.close().catch(() => undefined);
    }
    if (attempt < attempts) {
      await sleep(delay);
      delay = Math.min(delay * 2, 5000);
    }
  }
  throw lastError;
}

/** Driver options every adapter uses, unless the URL says otherwise. */
export function defaultClientOptions(url: string): MongoClientOptions {
  const options: MongoClientOptions = {};
  if (!urlHasOption(url, 'serverSelectionTimeoutMS')) options.serverSelectionTimeoutMS = 5000;
  if (!urlHasOption(url, 'appName')) options.appName = 'docs-platform';
  return options;
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
    const client = await connectWithRetry(() => new MongoClient(url, clientOptions), options);
    return { client, database, redact: checked.redact };
  } catch (error) {
    throw errors.unavailable(`cannot connect to MongoDB: ${checked.redact(messageOf(error))}`, error);
  }
}
