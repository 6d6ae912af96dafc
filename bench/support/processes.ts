import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ORGANIZATION_ROUTE, type ReferenceRoute } from './reference-server';

/** A port nobody listens on right now (the OS picks it; released before it is handed out). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolvePort(port) : reject(new Error('no port assigned'))));
    });
  });
}

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** Keeps the last `limit` characters a child wrote, to show them when something goes wrong. */
class Tail {
  private text = '';
  constructor(private readonly limit = 16_000) {}
  push(chunk: Buffer | string): void {
    this.text = (this.text + chunk.toString()).slice(-this.limit);
  }
  toString(): string {
    return this.text;
  }
}

/** Sends SIGTERM, waits for the exit, SIGKILL after `graceMs`. Resolves at once when already gone. */
async function terminate(child: ChildProcess, graceMs = 10_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

/** SIGKILL, then waits for the exit. */
async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGKILL');
  await exited;
}

export interface ServiceProcess {
  baseUrl: string;
  adminToken: string;
  dataDir: string;
  pid: number | undefined;
  /** Milliseconds from the spawn to the first `GET /health` 200. */
  readyMs: number;
  /** What the child wrote to stdout/stderr lately (logs at LOG_LEVEL=warn, so mostly empty). */
  output(): string;
  /** SIGTERM (SIGKILL after a grace period) and removal of the data directory unless it was given; safe to call twice. */
  stop(): Promise<void>;
  /** SIGKILL (kill -9, no clean-up in the service) and the same removal; resolves once the process is gone. */
  kill(): Promise<void>;
}

export interface StartServiceOptions {
  mainJs: string;
  env?: NodeJS.ProcessEnv;
  nodeArgs?: string[];
  readyTimeoutMs?: number;
  /** An existing data directory to start on (kept when the service stops); a fresh temporary one otherwise. */
  dataDir?: string;
  /** How often `/health` is asked while starting (100 ms by default; less to time the start-up). */
  healthPollMs?: number;
}

/**
 * Starts the embedded service the way a user does (`node dist/apps/api/src/main.js`) on a fresh
 * data directory (or the given one) and a free port, and waits until `GET /health` answers 200
 * (projections caught up). Extra node flags (e.g. `--cpu-prof`) come from BENCH_SERVICE_NODE_OPTIONS.
 */
export async function startService(options: StartServiceOptions): Promise<ServiceProcess> {
  const dataDir = options.dataDir ?? mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'bench-api-'));
  const ownDataDir = options.dataDir === undefined;
  const adminToken = `bench-admin-${randomBytes(16).toString('hex')}`;
  const tail = new Tail();
  let child: ChildProcess | undefined;
  let stopped = false;
  const end = async (how: (child: ChildProcess) => Promise<unknown>) => {
    if (stopped) return;
    stopped = true;
    if (child) await how(child);
    if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  const stop = () => end((running) => terminate(running));
  const kill = () => end((running) => killHard(running));
  try {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const spawnedAt = performance.now();
    child = spawn(process.execPath, [...(options.nodeArgs ?? []), resolve(options.mainJs)], {
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        ADMIN_TOKEN: adminToken,
        LOG_LEVEL: 'warn',
        // Embedded mode whatever the calling shell has set.
        EVENTSTORE_URL: '',
        MONGODB_URL: '',
        PUBLIC_URL: '',
        // The configured maximum (loadConfig rejects more): the benchmark's single token must not be throttled.
        RATE_LIMIT_PER_MINUTE: '10000000',
        SITES_RATE_LIMIT_PER_MINUTE: '10000000',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => tail.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => tail.push(chunk));
    let exited: string | undefined;
    child.once('exit', (code, signal) => (exited = `exited with ${signal ?? `code ${code}`}`));
    const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
    for (;;) {
      if (exited) throw new Error(`the service ${exited} before it was healthy:\n${tail}`);
      try {
        const response = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2000) });
        await response.arrayBuffer();
        if (response.status === 200) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`the service was not healthy within ${options.readyTimeoutMs ?? 60_000} ms:\n${tail}`);
      await sleep(options.healthPollMs ?? 100);
    }
    const readyMs = performance.now() - spawnedAt;
    const pid = child.pid;
    return { baseUrl, adminToken, dataDir, pid, readyMs, output: () => tail.toString(), stop, kill };
  } catch (error) {
    await stop();
    throw error;
  }
}

export interface ReferenceProcess {
  baseUrl: string;
  /** Its process id, for its CPU time. */
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * Starts `reference-server.js` (next to this file) in its own node process, serving `body` at
 * `GET <route>` (`/v1/orgs/:id` by default); resolves with its address once it listens.
 */
export async function startReference(body: unknown, route = ORGANIZATION_ROUTE): Promise<ReferenceProcess> {
  return startReferenceWith({ BENCH_REFERENCE_BODY: JSON.stringify(body), BENCH_REFERENCE_ROUTE: route });
}

/** The same with several routes, each with its own body (reference-server.ts, ReferenceRoute). */
export async function startReferenceRoutes(routes: ReferenceRoute[]): Promise<ReferenceProcess> {
  return startReferenceWith({ BENCH_REFERENCE_ROUTES: JSON.stringify(routes) });
}

/** The framework floor (nest-reference-server.ts): the smallest Nest application answering `body` at `GET <route>`. */
export async function startNestReference(body: unknown, route = ORGANIZATION_ROUTE): Promise<ReferenceProcess> {
  return startReferenceWith({ BENCH_REFERENCE_BODY: JSON.stringify(body), BENCH_REFERENCE_ROUTE: route }, 'nest-reference-server.js');
}

/** The framework floor with several routes, each with its own body (nest-reference-server.ts, listenNestReferenceRoutes). */
export async function startNestReferenceRoutes(routes: ReferenceRoute[]): Promise<ReferenceProcess> {
  return startReferenceWith({ BENCH_REFERENCE_ROUTES: JSON.stringify(routes) }, 'nest-reference-server.js');
}

async function startReferenceWith(settings: Record<string, string>, script = 'reference-server.js'): Promise<ReferenceProcess> {
  const child = fork(join(__dirname, script), [], {
    env: { ...process.env, BENCH_REFERENCE_BODY: '', BENCH_REFERENCE_ROUTES: '', ...settings },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const port = await new Promise<number>((done, reject) => {
      const timer = setTimeout(() => reject(new Error('the reference server did not start within 15 s')), 15_000);
      child.once('message', (message: unknown) => {
        clearTimeout(timer);
        const port = (message as { port?: unknown }).port;
        if (typeof port === 'number') done(port);
        else reject(new Error(`unexpected message from the reference server: ${JSON.stringify(message)}`));
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the reference server exited with code ${code}`));
      });
    });
    return { baseUrl: `http://127.0.0.1:${port}`, pid: child.pid, stop: async () => void (await terminate(child)) };
  } catch (error) {
    await terminate(child);
    throw error;
  }
}

/** User + system CPU seconds a process has used (Linux), or null. */
export function cpuSecondsOf(pid: number | undefined): number | null {
  return pid === undefined ? null : cpuSecondsAt(`/proc/${pid}/stat`);
}

/** The same for the process's main thread alone (the one answering requests: not its worker threads, LMDB's or libuv's). */
export function mainThreadCpuSecondsOf(pid: number | undefined): number | null {
  return pid === undefined ? null : cpuSecondsAt(`/proc/${pid}/task/${pid}/stat`);
}

function cpuSecondsAt(statFile: string): number | null {
  try {
    const stat = readFileSync(statFile, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the command: state is field 3, utime field 14, stime field 15 (1-based in proc(5)).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}
