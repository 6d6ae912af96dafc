/**
 * End-to-end harness: starts the API as a user would (`node apps/api/src/main.ts`, the entry point
 * `npm start` runs once built) in a child process on the embedded stores, and talks to it over HTTP.
 *
 *   const service = await startService();              // fresh DATA_DIR, free port, generated admin token
 *   const { user, token } = await service.createUser();
 *   const response = await service.request('GET', '/v1/user', { token });
 *   await service.restart();                           // same DATA_DIR, port and admin token
 *   afterAll(cleanUpServices);                         // stops what is still running, removes temp dirs
 *
 * The child's output is kept (`service.output()`) and shown only when something goes wrong.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Longest a request may take before the harness gives up on the service. */
const REQUEST_GUARD_MS = 90_000;
const ROOT = resolve(__dirname, '..', '..');
const REGISTER = join(__dirname, '..', '..', 'scripts', 'register-ts.js');
const MAIN = join(ROOT, 'apps', 'api', 'src', 'main.ts');

const STARTUP_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;
/** Output kept per child process; older output is dropped past this many characters. */
const OUTPUT_LIMIT = 1_000_000;

/** Variables the service reads (libs/platform/src/config.ts): never inherited from the test run. */
const SERVICE_VARIABLES = [
  'PORT',
  'HOST',
  'DATA_DIR',
  'ADMIN_TOKEN',
  'PUBLIC_URL',
  'LOG_LEVEL',
  'EVENTSTORE_URL',
  'MONGODB_URL',
  'READ_YOUR_WRITES_TIMEOUT_MS',
  'RATE_LIMIT_PER_MINUTE',
  'BODY_LIMIT_BYTES',
  'EVENT_BATCH_LIMIT_BYTES',
  'AUTH_FAILURES_PER_MINUTE',
  'SITES_RATE_LIMIT_PER_MINUTE',
  'TRUST_PROXY_HOPS',
  'SAML_FAILED_LOGINS_PER_MINUTE',
  'DNS_SERVERS',
  'IMPORT_ALLOW_PRIVATE_NETWORKS',
  'CONTENT_CONVERSION_TIME_MS',
  'CONTENT_UPLOAD_MAX_BYTES',
  'OPENAPI_ALLOW_PRIVATE_NETWORKS',
  'OPENAPI_FETCH_TIMEOUT_MS',
  'OPENAPI_PROCESSING_TIME_MS',
  'OPENAPI_MAX_BYTES',
  'OPENAPI_MAX_REDIRECTS',
  'SERVICE_NAME',
];

export interface StartOptions {
  /** Data directory to use; a fresh temporary one (removed by `cleanUpServices`) when absent. */
  dataDir?: string;
  /** Extra or overriding environment variables for the service (e.g. `RATE_LIMIT_PER_MINUTE`). */
  env?: Record<string, string>;
}

export interface RequestOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Serialized as JSON, with `Content-Type: application/json` unless `contentType` says otherwise. */
  body?: unknown;
  /** Sent as is, with `contentType` (default `application/json`). */
  rawBody?: string | Buffer;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface Response {
  status: number;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** Parsed JSON when the response is JSON, otherwise the text ('' when there is none). */
  body: any;
  text: string;
  /** The body's bytes (binary answers: files, PDFs). */
  bytes: Buffer;
}

export interface UserObject {
  object: 'user';
  id: string;
  displayName: string;
  email: string;
  photoURL?: string;
  urls: { location: string };
}

export interface RunningService {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  /** The admin token: ADMIN_TOKEN when given, else the one the service generated (printed once, kept in DATA_DIR/admin-token). */
  readonly adminToken: string;
  /** Whether the current child process is running. */
  readonly running: boolean;
  request(method: string, path: string, options?: RequestOptions): Promise<Response>;
  /** `POST /v1/admin/users`; throws unless it answers 201. Defaults give a unique address. */
  createUser(email?: string, displayName?: string): Promise<{ user: UserObject; token: string }>;
  /** What the current child process wrote so far. */
  output(): { stdout: string; stderr: string };
  /** SIGTERM, then waits for the process to exit (SIGKILL after 10 s). */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL, as a crash would, and waits for the process to be gone. */
  kill(): Promise<void>;
  /** Stops (if running) and starts again on the same DATA_DIR, port and environment. */
  restart(): Promise<void>;
}

interface Child {
  process: ChildProcess;
  stdout: string;
  stderr: string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const liveChildren = new Set<ChildProcess>();
const temporaryDirectories = new Set<string>();
const services = new Set<ServiceHandle>();

// Never leave a service behind, even when a test run is interrupted.
process.once('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL');
});

let userCounter = 0;

export async function startService(options: StartOptions = {}): Promise<RunningService> {
  let dataDir = options.dataDir;
  if (!dataDir) {
    dataDir = mkdtempSync(join(tmpdir(), 'docs-platform-e2e-'));
    temporaryDirectories.add(dataDir);
  }
  const env = options.env ?? {};
  // Another process may take the probed port before the service binds it: try a few ports.
  for (let attempt = 1; ; attempt++) {
    const port = Number(env.PORT) || (await freePort());
    const service = new ServiceHandle(dataDir, port, env);
    try {
      await service.start();
      services.add(service);
      return service;
    } catch (error) {
      const portTaken = /EADDRINUSE/.test(service.output().stdout + service.output().stderr);
      if (!portTaken || env.PORT || attempt >= 3) throw error;
    }
  }
}

/** Stops every service still running (SIGKILL) and removes the temporary data directories. Call it in afterAll. */
export async function cleanUpServices(): Promise<void> {
  await Promise.all([...services].map((service) => service.kill()));
  services.clear();
  for (const directory of temporaryDirectories) rmSync(directory, { recursive: true, force: true });
  temporaryDirectories.clear();
}

/** A fresh temporary directory, removed by `cleanUpServices`. */
export function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'docs-platform-e2e-'));
  temporaryDirectories.add(directory);
  return directory;
}

class ServiceHandle implements RunningService {
  readonly url: string;
  adminToken = '';
  private child: Child | null = null;

  constructor(
    readonly dataDir: string,
    readonly port: number,
    private readonly env: Record<string, string>,
  ) {
    this.url = `http://127.0.0.1:${port}`;
  }

  get running(): boolean {
    const spawned = this.child?.process;
    return Boolean(spawned && spawned.exitCode === null && spawned.signalCode === null);
  }

  async start(): Promise<void> {
    if (this.running) throw new Error(`the service on ${this.url} is already running`);
    const childEnv: NodeJS.ProcessEnv = { ...process.env };
    for (const name of SERVICE_VARIABLES) delete childEnv[name];
    Object.assign(childEnv, { DATA_DIR: this.dataDir, PORT: String(this.port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' }, this.env);
    const spawned = spawn(process.execPath, ['-r', REGISTER, MAIN], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    liveChildren.add(spawned);
    const child: Child = {
      process: spawned,
      stdout: '',
      stderr: '',
      exit: new Promise((resolveExit) =>
        spawned.once('exit', (code, signal) => {
          liveChildren.delete(spawned);
          resolveExit({ code, signal });
        }),
      ),
    };
    spawned.stdout!.setEncoding('utf8').on('data', (chunk: string) => (child.stdout = keep(child.stdout + chunk)));
    spawned.stderr!.setEncoding('utf8').on('data', (chunk: string) => (child.stderr = keep(child.stderr + chunk)));
    this.child = child;
    try {
      await this.waitUntilHealthy(child);
    } catch (error) {
      spawned.kill('SIGKILL');
      await child.exit;
      throw error;
    }
    this.adminToken =
      this.env.ADMIN_TOKEN ?? printedAdminToken(child.stdout) ?? readFileSync(join(this.dataDir, 'admin-token'), 'utf8').trim();
  }

  private async waitUntilHealthy(child: Child): Promise<void> {
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    const state: { exited?: { code: number | null; signal: NodeJS.Signals | null } } = {};
    void child.exit.then((result) => (state.exited = result));
    let last = 'no answer yet';
    while (Date.now() < deadline) {
      if (state.exited) {
        const { code, signal } = state.exited;
        throw new Error(`the service exited during start (code ${code}, signal ${signal})\n${describeOutput(child)}`);
      }
      try {
        const response = await fetch(`${this.url}/health`, { signal: AbortSignal.timeout(2000) });
        const text = await response.text();
        if (response.status === 200) return;
        last = `${response.status} ${text.slice(0, 500)}`;
      } catch (error) {
        last = String((error as Error).message);
      }
      await delay(100);
    }
    throw new Error(
      `the service on ${this.url} did not answer GET /health with 200 within ${STARTUP_TIMEOUT_MS} ms (last: ${last})\n${describeOutput(child)}`,
    );
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = {};
    let body: string | Buffer | undefined;
    if (options.rawBody !== undefined) {
      body = options.rawBody;
      headers['content-type'] = options.contentType ?? 'application/json';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = options.contentType ?? 'application/json';
    } else if (options.contentType !== undefined) {
      headers['content-type'] = options.contentType;
    }
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    Object.assign(headers, options.headers);
    // Only a guard against a hung service: heavy requests under a loaded CI machine take several
    // seconds, and the tests' own time-outs bound them.
    const response = await fetch(`${this.url}${path}`, { method, headers, body, signal: AbortSignal.timeout(REQUEST_GUARD_MS) });
    const bytes = Buffer.from(await response.arrayBuffer());
    const text = bytes.toString('utf8');
    const responseHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => (responseHeaders[name.toLowerCase()] = value));
    let parsed: unknown = text;
    if (/\bjson\b/i.test(responseHeaders['content-type'] ?? '') && text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: response.status, headers: responseHeaders, body: parsed, text, bytes };
  }

  async createUser(email?: string, displayName?: string): Promise<{ user: UserObject; token: string }> {
    const n = ++userCounter;
    const unique = `${process.pid}x${Date.now().toString(36)}x${n}`;
    const response = await this.request('POST', '/v1/admin/users', {
      token: this.adminToken,
      body: { email: email ?? `user-${unique}@example.com`, displayName: displayName ?? `Test User ${n}` },
    });
    if (response.status !== 201) {
      throw new Error(`POST /v1/admin/users answered ${response.status}: ${response.text.slice(0, 1000)}`);
    }
    return { user: response.body.user, token: response.body.token };
  }

  output(): { stdout: string; stderr: string } {
    return { stdout: this.child?.stdout ?? '', stderr: this.child?.stderr ?? '' };
  }

  async stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const child = this.child;
    if (!child) return { code: null, signal: null };
    if (this.running) {
      child.process.kill('SIGTERM');
      const timer = setTimeout(() => child.process.kill('SIGKILL'), STOP_TIMEOUT_MS);
      try {
        return await child.exit;
      } finally {
        clearTimeout(timer);
      }
    }
    return child.exit;
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    if (this.running) child.process.kill('SIGKILL');
    await child.exit;
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }
}

/** The token main.ts prints on first start: "Admin token (shown once, stored in …):\n\n  <token>". */
export function printedAdminToken(stdout: string): string | undefined {
  return /Admin token \(shown once[^\n]*\n\s*(\S+)/.exec(stdout)?.[1];
}

function describeOutput(child: Child): string {
  return `--- stderr ---\n${child.stderr.slice(-20_000) || '(empty)'}\n--- stdout ---\n${child.stdout.slice(-20_000) || '(empty)'}`;
}

function keep(text: string): string {
  return text.length > OUTPUT_LIMIT ? text.slice(-OUTPUT_LIMIT) : text;
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolvePort(port) : reject(new Error('could not find a free port'))));
    });
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolveDelay) => setTimeout(resolveDelay, ms));
}

/**
 * Asserts the error envelope: status, `{ error: { code: <status>, message } }` and
 * nothing else, a JSON content type, a request id, and (when given) what the message must contain.
 */
export function expectError(response: Response, status: number, message?: RegExp | string): void {
  expect({ status: response.status, body: response.body }).toEqual({
    status,
    body: { error: { code: status, message: expect.any(String) } },
  });
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  expect(response.body.error.message.trim()).not.toBe('');
  if (message !== undefined) expect(response.body.error.message).toMatch(message);
}

/** The response, when its status is `status`; otherwise an error that shows what came instead. */
export function ok(response: Response, status = 200): Response {
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${response.text.slice(0, 800)}`);
  return response;
}

/** Asks `check` every 50 ms until it finds something (15 s at most), for what the service does after answering. */
export async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const found = await check();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}
