/**
 * A reactor's process killed (SIGKILL) between reactions: at the next start the reactor replays
 * from its last saved checkpoint, so nothing is lost, and its idempotent commands append nothing
 * the second time, so nothing is applied twice.
 *
 * The same file is the child process (`REACTOR_CRASH_DATA_DIR` set): the embedded stores in that
 * directory, the runtime as the service wires it, one reactor marking each order.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Decider } from '#event-store/decider';
import { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';
import type { Projection } from '#read-store/projections/projection';
import { loadConfig } from '#platform/config';
import { systemClock } from '#platform/clock';
import { configureLogging } from '#platform/logging';
import type { Reactor } from './reactor';
import { createRuntime } from './runtime.module';
import { openStores } from './stores';

const ORDERS = 12;
const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

type OrderEvent = { type: 'Ordered'; data: { id: string } };
const orderDecider: Decider<{ id: string }, OrderEvent, boolean> = {
  initialState: () => false,
  evolve: () => true,
  decide: (command, ordered) => (ordered ? [] : [{ type: 'Ordered', data: { id: command.id } }]),
};
/** Marks a stream at most once: `Mark` on a marked stream appends nothing (the idempotent command). */
type MarkEvent = { type: 'Marked'; data: { id: string } };
const markDecider: Decider<{ id: string }, MarkEvent, boolean> = {
  initialState: () => false,
  evolve: () => true,
  decide: (command, marked) => (marked ? [] : [{ type: 'Marked', data: { id: command.id } }]),
};
const marks: Projection = {
  name: 'marks',
  collections: ['marks'],
  handles: ['Marked'],
  async apply(event, tx) {
    await tx.collection('marks').put({ _id: (event.data as { id: string }).id });
  },
};

async function child(dataDir: string): Promise<void> {
  configureLogging('silent');
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const stores = await openStores(config);
  const marker: Reactor = {
    name: 'marker',
    handles: ['Ordered'],
    async react(event, { commands, caller }) {
      const { id } = event.data as { id: string };
      await commands.run(`mark-${id}`, markDecider, { id }, { caller });
      process.stdout.write(`reacted ${id}\n`);
      // Room for the parent's kill: after the command, before the checkpoint moves past the event.
      await sleep(30);
    },
  };
  const runtime = createRuntime({ config, stores, clock: systemClock, projections: [marks], runProjections: true, reactors: [marker] });
  await runtime.runner!.start();
  await runtime.runner!.whenCaughtUp();
  for (let i = 0; i < ORDERS; i++) {
    await runtime.commands.run(`order-${i}`, orderDecider, { id: String(i) }, { caller: { kind: 'admin' } as never }, { wait: false });
  }
  while ((await stores.reads.collection('marks').count({})) < ORDERS) await sleep(10);
  await runtime.stopReactors();
  await runtime.runner!.stop();
  await runtime.work.close();
  await stores.close();
  process.stdout.write('done\n');
}

/** Runs the child until it prints `done`, or kills it (SIGKILL) once it has printed `killAfter` reactions. */
function runChild(dataDir: string, killAfter?: number): Promise<{ reacted: string[]; killed: boolean; output: string }> {
  const root = resolve(__dirname, '..', '..', '..');
  const process_ = spawn(process.execPath, ['-r', join(root, 'scripts', 'register-ts.js'), __filename], {
    cwd: root,
    env: { ...process.env, REACTOR_CRASH_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const reacted: string[] = [];
  let output = '';
  let killed = false;
  process_.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    for (const line of chunk.split('\n')) {
      const match = /^reacted (\d+)$/.exec(line);
      if (match) reacted.push(match[1]);
    }
    if (killAfter !== undefined && !killed && reacted.length >= killAfter) {
      killed = true;
      process_.kill('SIGKILL');
    }
  });
  process_.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return new Promise((done, fail) => {
    process_.on('error', fail);
    process_.on('exit', (code, signal) => {
      if (killed ? signal === 'SIGKILL' : code === 0) done({ reacted, killed, output });
      else fail(new Error(`the child exited with ${code ?? signal}:\n${output}`));
    });
  });
}

if (process.env.REACTOR_CRASH_DATA_DIR) {
  child(process.env.REACTOR_CRASH_DATA_DIR).catch((error: unknown) => {
    process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  });
} else {
  describe('a reactor process killed (SIGKILL) between reactions', () => {
    let dataDir: string;

    beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'reactor-crash-'))));
    afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

    it('after a restart, reacts to every event (nothing lost) and every command took effect once (nothing applied twice)', async () => {
      const first = await runChild(dataDir, 4);
      expect(first.killed).toBe(true);
      expect(first.output).not.toContain('done');

      const second = await runChild(dataDir);
      expect(second.output).toContain('done');
      // The restart resumes from the saved checkpoint: what the first run reacted to after it is delivered again.
      expect(new Set([...first.reacted, ...second.reacted])).toEqual(new Set(Array.from({ length: ORDERS }, (_, i) => String(i))));

      const events = LmdbEventStore.open(join(dataDir, 'events'));
      try {
        for (let i = 0; i < ORDERS; i++) {
          const [ordered] = await events.readStream(`order-${i}`);
          const marked = await events.readStream(`mark-${i}`);
          expect(marked.map((event) => event.type)).toEqual(['Marked']);
          expect(marked[0].metadata).toMatchObject({ causationId: ordered.id });
        }
      } finally {
        await events.close();
      }
    });
  });
}
