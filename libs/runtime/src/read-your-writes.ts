import type { LogPosition } from '#event-store/event-store.port';
import type { ProjectionRunner } from '#read-store/projections/projection-runner';
import { CHECKPOINTS } from '#read-store/projections/projection-runner';
import type { ReadStore } from '#read-store/read-store.port';
import { ApiError } from '#platform/http/error-envelope';
import { log } from '#platform/logging';
import type { Metrics } from './metrics';
import { readReactorProgress } from './reactor-checkpoint';

/**
 * Read-your-writes (docs/read-side.md, Read-your-writes): a write answers only once the read models have applied its
 * events and the cascades they set off, so the response and any GET after it show the change. The
 * wait is bounded; a time-out is logged and counted, and the write still answers (its events are
 * durable).
 *
 * The cascade wait, in rounds: once the projections have passed the target (first the write's
 * position), every reactor concerned must have reacted up to it; the highest position those
 * reactions appended becomes the next target, until a round appends nothing beyond the target.
 * A reactor whose reaction is failing is not waited for: the write answers as timed out.
 *
 * Projections that are failing (their batch retried, in this process) when the wait times out short
 * of the write: the write is stored, but what the handler would read next predates it (a create
 * would answer 404), so the wait throws `WriteNotShownError` (503) instead.
 */
export interface ReadYourWrites {
  /** `requestId` labels the time-out warning, if any. */
  wait(position: LogPosition | undefined, requestId?: string, options?: WaitOptions): Promise<void>;
}

export interface WaitOptions {
  /** Types of the write's events: the first round waits only for reactors handling one of them. Absent: every reactor. */
  types?: readonly string[];
  /** False: the projections only (inside a reaction, which must not wait for the reactors). Default true. */
  cascades?: boolean;
}

/** A reactor running in this process, as a write waits for it (the reactor runner is one). */
export interface AwaitedReactor {
  readonly name: string;
  readonly handles: readonly string[];
  waitFor(position: LogPosition, timeoutMs: number): Promise<{ passed: boolean; appended: LogPosition | null }>;
}

/** The reactors the first round waits for: those handling one of the write's event types. */
function concerned<T extends { handles: readonly string[] }>(reactors: readonly T[], types: readonly string[] | undefined): T[] {
  return types === undefined ? [...reactors] : reactors.filter((reactor) => reactor.handles.some((type) => types.includes(type)));
}
export const READ_YOUR_WRITES = Symbol('READ_YOUR_WRITES');

/** A write stored in the log that the read models cannot show, their projections failing: 503, read again later. */
export class WriteNotShownError extends ApiError {
  constructor() {
    super(503, 'the write was stored, but the read models cannot show it yet; read it again later rather than repeating the write', {
      'Retry-After': '5',
    });
  }
}

/** What `InProcessReadYourWrites` needs of the projection runner. */
type AwaitedProjections = Pick<ProjectionRunner, 'waitFor'> & { readonly failure?: string | null };

/** Embedded mode, and reactions in the projector: the projections and reactors run in this process. */
export class InProcessReadYourWrites implements ReadYourWrites {
  constructor(
    private readonly runner: AwaitedProjections,
    private readonly timeoutMs: number,
    private readonly metrics: Metrics,
    private readonly reactors: readonly AwaitedReactor[] = [],
  ) {}

  async wait(position: LogPosition | undefined, requestId?: string, options: WaitOptions = {}): Promise<void> {
    if (position === undefined) return;
    const stop = this.metrics.readYourWritesWait.startTimer();
    const settled = await this.settle(position, Date.now() + this.timeoutMs, options);
    stop();
    if (settled === true) return;
    timedOut(this.metrics, position, this.timeoutMs, requestId);
    const failure = settled === 'projections' ? this.runner.failure : null;
    if (failure) {
      log.warn(
        { requestId, position: position.toString(), failure },
        'a write is stored but the failing projections do not show it: answered 503',
      );
      throw new WriteNotShownError();
    }
  }

  /** True once settled; else who fell short: the projections, of the write itself, or the cascade (a reactor, or the projections of what reactions appended). */
  private async settle(position: LogPosition, deadline: number, options: WaitOptions): Promise<true | 'projections' | 'reactors'> {
    let target = position;
    let reactors = options.cascades === false ? [] : concerned(this.reactors, options.types);
    for (;;) {
      if (!(await this.runner.waitFor(target, Math.max(0, deadline - Date.now())))) return target === position ? 'projections' : 'reactors';
      if (reactors.length === 0) return true;
      const reacted = await Promise.all(reactors.map((reactor) => reactor.waitFor(target, Math.max(0, deadline - Date.now()))));
      if (reacted.some((result) => !result.passed)) return 'reactors';
      const next = reacted.reduce<LogPosition>(
        (highest, result) => (result.appended !== null && result.appended > highest ? result.appended : highest),
        target,
      );
      if (next <= target) return true;
      target = next;
      // What the reactions appended may set off any reactor.
      reactors = [...this.reactors];
    }
  }
}

interface ReactorSeen {
  handles: readonly string[];
  position: LogPosition | null;
  appended: LogPosition | null;
  failing: boolean;
}

interface PollingWaiter {
  target: LogPosition;
  /** The reactors this round waits for, once the projections have passed the target. */
  reactors: readonly string[];
  resolve: (ok: boolean) => void;
  deadline: number;
}

/**
 * Distributed mode: the projector (projections and reactors) is another process. Its checkpoints
 * are committed with what they cover (the projections' with the read models; the reactors', all in
 * one document saved within milliseconds, after their reactions, with the highest position they
 * appended), so polling the checkpoint documents is an exact test of "applied". Concurrent waiters
 * share one poll loop.
 *
 * Every wait reads the checkpoints at least once: nothing is answered from a position remembered
 * from an earlier poll, which a rebuild (checkpoint moved back or removed) would have made false.
 * The read store must read them from the primary with majority read concern (the MongoDB read
 * store does, whatever the URL says): a checkpoint read from a lagging secondary, or one a
 * failover rolls back, would answer a write before the read models every replica reads show it.
 */
export class CheckpointPollingReadYourWrites implements ReadYourWrites {
  private applied: LogPosition | null = null;
  private readonly seen = new Map<string, ReactorSeen>();
  private readonly waiters = new Set<PollingWaiter>();
  private polling = false;

  constructor(
    private readonly reads: ReadStore,
    private readonly timeoutMs: number,
    private readonly metrics: Metrics,
    private readonly intervalMs = 5,
    private readonly checkpointName = 'main',
    /** The reactors the projector runs: their names and the event types they handle. */
    reactors: ReadonlyArray<{ name: string; handles: readonly string[] }> = [],
  ) {
    for (const reactor of reactors)
      this.seen.set(reactor.name, { handles: reactor.handles, position: null, appended: null, failing: false });
  }

  async wait(position: LogPosition | undefined, requestId?: string, options: WaitOptions = {}): Promise<void> {
    if (position === undefined) return;
    const reactors =
      options.cascades === false
        ? []
        : concerned(
            [...this.seen].map(([name, seen]) => ({ name, handles: seen.handles })),
            options.types,
          ).map((r) => r.name);
    const stop = this.metrics.readYourWritesWait.startTimer();
    const ok = await new Promise<boolean>((resolve) => {
      this.waiters.add({ target: position, reactors, resolve, deadline: Date.now() + this.timeoutMs });
      void this.poll();
    });
    stop();
    if (!ok) timedOut(this.metrics, position, this.timeoutMs, requestId);
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      while (this.waiters.size > 0) {
        await this.readCheckpoints();
        const now = Date.now();
        for (const waiter of [...this.waiters]) {
          const done = this.advance(waiter);
          if (done !== null || now >= waiter.deadline) {
            this.waiters.delete(waiter);
            waiter.resolve(done === true);
          }
        }
        if (this.waiters.size > 0) await new Promise((resolve) => setTimeout(resolve, this.intervalMs));
      }
    } finally {
      this.polling = false;
    }
  }

  private async readCheckpoints(): Promise<void> {
    const checkpoints = this.reads.collection(CHECKPOINTS);
    try {
      const checkpoint = await checkpoints.get(this.checkpointName);
      const position = typeof checkpoint?.position === 'string' ? BigInt(checkpoint.position) : null;
      // Taken as read even when lower or gone: a rebuild moves the checkpoint back (or removes
      // it), and a position remembered from before would pass waits the rebuilt read models have
      // not caught up with.
      if (this.applied !== null && (position === null || position < this.applied)) {
        log.info({ from: this.applied.toString(), to: position?.toString() ?? null }, 'the projector checkpoint moved back (a rebuild?)');
      }
      this.applied = position;
    } catch (error) {
      // Unknown until the next successful read: the last one may predate a rebuild.
      this.applied = null;
      log.warn({ err: error }, 'could not read the projector checkpoint');
    }
    if (![...this.waiters].some((waiter) => waiter.reactors.length > 0)) return;
    try {
      const progress = await readReactorProgress(this.reads, [...this.seen.keys()]);
      for (const [name, seen] of this.seen) {
        const doc = progress.get(name);
        seen.position = typeof doc?.position === 'string' ? BigInt(doc.position) : null;
        seen.appended = typeof doc?.appended === 'string' ? BigInt(doc.appended) : null;
        seen.failing = typeof doc?.failing === 'string';
      }
    } catch (error) {
      for (const seen of this.seen.values()) seen.position = null;
      log.warn({ err: error }, 'could not read the reactor checkpoints');
    }
  }

  /** Moves a waiter on as far as the checkpoints allow: true done, false given up (a failing reactor), null still waiting. */
  private advance(waiter: PollingWaiter): boolean | null {
    for (;;) {
      if (this.applied === null || this.applied < waiter.target) return null;
      if (waiter.reactors.length === 0) return true;
      let next = waiter.target;
      for (const name of waiter.reactors) {
        const seen = this.seen.get(name)!;
        if (seen.position === null || seen.position < waiter.target) return seen.failing ? false : null;
        // The highest position appended up to the reactor's checkpoint: at least what this write set off.
        if (seen.appended !== null && seen.appended > next) next = seen.appended;
      }
      if (next <= waiter.target) return true;
      waiter.target = next;
      waiter.reactors = [...this.seen.keys()];
    }
  }
}

function timedOut(metrics: Metrics, position: LogPosition, timeoutMs: number, requestId?: string): void {
  metrics.readYourWritesTimeouts.inc();
  log.warn(
    { requestId, position: position.toString(), timeoutMs },
    'read models did not apply a write within the read-your-writes timeout',
  );
}
