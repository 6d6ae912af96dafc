import type { EventStore, LogPosition, LogSubscription, RecordedEvent } from '#event-store/event-store.port';
import type { Caller } from '#platform/http/auth';
import type { ReadStore } from '#read-store/read-store.port';
import { EventLoopTurns, retryWithBackoff, sleep, type Backoff } from '#read-store/projections/backoff';
import { CommandBus } from '@nestjs/cqrs';
import type { DomainEvent } from '#event-store/decider';
import type { CommandRunner } from './command-runner';
import type { Metrics } from './metrics';
import { runInReaction } from './reaction-scope';
import { ReactorCheckpoints } from './reactor-checkpoint';
import type { ReactorDispatcher, SharedSubscription, StreamMessage } from './reactor-dispatcher';

/** A class the process's dependency container can give an instance of, or a port token (the caller names its type). */
export type ServiceToken<T> = (abstract new (...args: any[]) => T) | symbol;

/** The services of the process's bounded contexts (Nest providers), for reactions that call a context's command service. */
export interface Services {
  get<T>(token: ServiceToken<T>): T;
}

/** What a reaction has at hand. */
export interface ReactionContext {
  /** The system actor of this reactor: stamped on what it appends. */
  caller: Caller;
  /** The triggering event's correlation id (its request's), carried on by what the reaction appends. */
  correlationId: string;
  /** The triggering event's id: the cause of what the reaction appends. */
  causationId: string;
  /**
   * Where a reaction dispatches its commands: their handlers run inside the reaction, so what they
   * append waits for the projections (not for the reactors) and carries cause and correlation.
   */
  commandBus: CommandBus;
  /** The streams' current states, for the checks a reaction makes before dispatching (`commands.load`). */
  commands: CommandRunner;
  /** The read models, applied at least up to the triggering event. */
  reads: ReadStore;
  services: Services;
}

/**
 * A reactor issues commands in reaction to events (a process step: cascades, purges, integration
 * events), where a projection writes read models. Delivery is at least once: after a crash between
 * a reaction and its checkpoint the event is delivered again, so `react` must be idempotent (the
 * commands it issues append nothing when their effect is already there) and must check that what
 * it reacts to still holds (a reactor replaying old events must not undo later changes).
 */
/** A recorded event of the union `E`, its `data` narrowed by its `type`. */
export type RecordedOf<E extends DomainEvent> = E extends DomainEvent
  ? Omit<RecordedEvent, 'type' | 'data'> & { type: E['type']; data: E['data'] }
  : never;

export interface Reactor<E extends DomainEvent = DomainEvent> {
  /** Names its checkpoint (its entry of `_checkpoints/reactors`): renaming it replays the whole log. */
  name: string;
  /** Event types it reacts to: only these are delivered; the others only move its checkpoint. */
  handles: readonly E['type'][];
  /**
   * False for long-running work a write must not wait for (fetching and processing a document):
   * read-your-writes leaves the reactor out, and the work's progress shows in the read models.
   * Default true: a write answers once its cascades are read.
   */
  awaitedByWrites?: boolean;
  react(event: RecordedOf<E>, context: ReactionContext): Promise<void>;
}

export interface ReactorStatus {
  name: string;
  running: boolean;
  caughtUp: boolean;
  checkpoint: LogPosition | null;
  head: LogPosition | null;
  /** Events not yet processed, where the store's positions count events (LMDB); otherwise null. */
  lagEvents: number | null;
  /** Highest position appended by its reactions. */
  appended: LogPosition | null;
  /** The error of the reaction being retried, if one is. */
  failing: string | null;
  lastError: string | null;
}

export interface ReactorRunnerOptions {
  /** Before a reaction, the projections must have applied its event (the reaction reads the read models). */
  projections?: { waitFor(position: LogPosition, timeoutMs: number): Promise<boolean> };
  /** Longest wait for the projections before a reaction counts as failed (and is retried). Default 30 s. */
  projectionsTimeoutMs?: number;
  /** After a dropped subscription. Default 100 ms .. 5 s. */
  backoff?: Backoff;
  /** Between attempts of a failing reaction. Default 100 ms .. 30 s. */
  retry?: Backoff;
  /** The process's shared stream of committed events; absent, the reactor reads the log on its own subscription. */
  stream?: ReactorDispatcher;
  /** Where its checkpoint is saved, in batches with the other reactors'. Default: its own, saved at most once a second. */
  checkpoints?: ReactorCheckpoints;
  metrics?: Metrics;
  logger?: { warn(message: string, context?: object): void; error(message: string, context?: object): void };
  /** Test hook: after a reaction, before its checkpoint is written. */
  afterReaction?: (event: RecordedEvent) => void | Promise<void>;
}

/** Kept per reactor: which positions the reactions appended, by triggering position (bounded). */
const HISTORY_LIMIT = 10_000;

/**
 * Runs one reactor: takes the events it handles from the process's shared stream (or, when behind
 * it or without one, from the log after its own checkpoint), reacts to them one at a time and in
 * order, and records its progress in `ReactorCheckpoints`, which saves it in batches. A failing
 * reaction is retried with backoff and the checkpoint stays before it, so nothing is skipped;
 * requests are not held up by it (read-your-writes does not wait for a failing reactor). After a
 * dropped subscription it starts again from the checkpoint.
 *
 * It remembers, by triggering position, the highest position its reactions appended, so that a
 * write can wait for the cascades its events set off (`waitFor`).
 */
export class ReactorRunner {
  readonly name: string;
  private readonly backoff: Backoff;
  private readonly retry: Backoff;
  private readonly checkpoints: ReactorCheckpoints;
  private checkpoint: LogPosition | null = null;
  /** Highest position appended by reactions up to the checkpoint. */
  private appended: LogPosition | null = null;
  /** (trigger, appended-so-far) for each reaction that appended, oldest first; `floor` stands for those dropped. */
  private history: Array<{ trigger: LogPosition; appended: LogPosition }> = [];
  private floor: LogPosition | null = null;
  private running = false;
  /** Set by stop(): a start() still loading its checkpoint then does not start. */
  private stopRequested = false;
  private caughtUp = false;
  /** The log's head when it started: caught up once its checkpoint reaches it (with the shared stream). */
  private startHead: LogPosition | null = null;
  private failing: string | null = null;
  private lastError: string | null = null;
  private loop: Promise<void> | null = null;
  private subscription: LogSubscription | SharedSubscription | null = null;
  private abort = new AbortController();
  private readonly waiters = new Set<{ position: LogPosition; resolve: (passed: boolean) => void }>();
  private readonly caughtUpWaiters: Array<() => void> = [];
  private readonly caller: Caller;

  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore,
    private readonly reactor: Reactor,
    private readonly commands: CommandRunner,
    private readonly services: Services,
    private readonly options: ReactorRunnerOptions = {},
  ) {
    this.name = reactor.name;
    this.backoff = options.backoff ?? { initialMs: 100, maxMs: 5000 };
    this.retry = options.retry ?? { initialMs: 100, maxMs: 30_000 };
    this.checkpoints = options.checkpoints ?? new ReactorCheckpoints(reads, undefined, options.logger);
    this.caller = { kind: 'system', id: `reactor-${reactor.name}`, label: `Reactor ${reactor.name}` };
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.stopRequested = false;
    const stored = await this.checkpoints.load(this.name);
    this.checkpoint = stored?.position ? BigInt(stored.position) : null;
    this.appended = stored?.appended ? BigInt(stored.appended) : null;
    this.floor = this.appended;
    this.history = [];
    this.startHead = await this.events.headPosition();
    if (this.stopRequested) return;
    this.abort = new AbortController();
    this.running = true;
    this.caughtUp = false;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopRequested = true;
    this.running = false;
    this.abort.abort();
    await this.subscription?.close();
    await this.loop;
    this.loop = null;
    for (const waiter of this.waiters) waiter.resolve(false);
    this.waiters.clear();
    // A checkpoint not saved only means a replay of idempotent reactions at the next start.
    await this.checkpoints.flush().catch((error: unknown) =>
      this.options.logger?.warn('could not save a reactor checkpoint at stop', {
        reactor: this.name,
        error: String((error as Error)?.message ?? error),
      }),
    );
  }

  /** The event types its reactor handles. */
  get handles(): readonly string[] {
    return this.reactor.handles;
  }

  position(): LogPosition | null {
    return this.checkpoint;
  }

  isFailing(): boolean {
    return this.failing !== null;
  }

  async status(): Promise<ReactorStatus> {
    const head = await this.events.headPosition();
    const counted = head !== null && head < 1n << 64n;
    return {
      name: this.name,
      running: this.running,
      caughtUp: this.caughtUp,
      checkpoint: this.checkpoint,
      head,
      lagEvents: counted ? Math.max(0, Number(head - (this.checkpoint ?? 0n))) : null,
      appended: this.appended,
      failing: this.failing,
      lastError: this.lastError,
    };
  }

  /** Resolves once the checkpoint has caught up with the log head as it was at subscription. */
  whenCaughtUp(): Promise<void> {
    if (this.caughtUp) return Promise.resolve();
    return new Promise((resolve) => this.caughtUpWaiters.push(resolve));
  }

  /**
   * Resolves `{ passed: true, appended }` once every event up to `position` has been reacted to;
   * `appended` is the highest position the reactions to those events appended (null: none). False
   * after `timeoutMs`, when stopped, or at once while a reaction is failing.
   */
  async waitFor(position: LogPosition, timeoutMs: number): Promise<{ passed: boolean; appended: LogPosition | null }> {
    const passed = await this.passed(position, timeoutMs);
    return { passed, appended: passed ? this.appendedFor(position) : null };
  }

  private passed(position: LogPosition, timeoutMs: number): Promise<boolean> {
    if (this.checkpoint !== null && this.checkpoint >= position) return Promise.resolve(true);
    if (!this.running || this.failing !== null) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = {
        position,
        resolve: (passed: boolean) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(passed);
        },
      };
      const timer = setTimeout(() => waiter.resolve(false), timeoutMs);
      timer.unref?.();
      this.waiters.add(waiter);
    });
  }

  /** Highest position appended by reactions to events at or before `position`. */
  private appendedFor(position: LogPosition): LogPosition | null {
    let low = 0;
    let high = this.history.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.history[middle].trigger <= position) low = middle + 1;
      else high = middle;
    }
    return low === 0 ? this.floor : this.history[low - 1].appended;
  }

  private async run(): Promise<void> {
    await retryWithBackoff({
      backoff: this.backoff,
      isRunning: () => this.running,
      attempt: () => this.consume(),
      signal: this.abort.signal,
      onFailure: (error, retryInMs) => {
        this.lastError = String((error as Error)?.message ?? error);
        this.options.logger?.warn('reactor subscription failed; resubscribing from checkpoint', {
          reactor: this.name,
          checkpoint: this.checkpoint?.toString() ?? null,
          error: this.lastError,
          retryInMs,
        });
      },
    });
  }

  private async consume(): Promise<void> {
    const stream = this.options.stream;
    if (!stream) {
      await this.follow(this.fromLog(), null);
      return;
    }
    const shared = stream.join(this.reactor.handles);
    this.subscription = shared;
    try {
      while (this.running) {
        // Behind the shared stream (an older checkpoint, or it fell further behind than its queue holds): the log, up to where it joined.
        const from = shared.from;
        if (from !== null && (this.checkpoint === null || this.checkpoint < from)) {
          const log = this.fromLog();
          try {
            if (!(await this.follow(log, from))) return;
          } finally {
            this.subscription = shared;
            await log.close();
          }
        }
        await this.checkCaughtUp();
        if (!(await this.follow(shared, null))) return;
        shared.rejoin(); // it fell behind
      }
    } finally {
      this.subscription = null;
      await shared.close();
    }
  }

  /** Its own filtered subscription: the events it does not handle arrive as `checkpoint` messages, never as events it would drop. */
  private fromLog(): LogSubscription {
    const subscription = this.events.subscribeToAll({ after: this.checkpoint ?? undefined, types: this.reactor.handles });
    this.subscription = subscription;
    return subscription;
  }

  /**
   * Reacts to a subscription's messages in order, up to `until` (null: until the stream says it
   * fell behind). Answers true when it got there, false when stopped.
   */
  private async follow(subscription: AsyncIterable<StreamMessage>, until: LogPosition | null): Promise<boolean> {
    const iterator = subscription[Symbol.asyncIterator]();
    const turns = new EventLoopTurns();
    while (this.running) {
      const result = await iterator.next();
      if (result.done) {
        if (this.running) throw new Error('the subscription ended');
        return false;
      }
      const message = result.value;
      if (message.kind === 'behind') return true;
      if (message.kind === 'caughtUp') {
        // A log subscription caught up has delivered everything up to the head, so past `until`.
        if (until !== null) return this.reached(until);
        await this.markCaughtUp();
        continue;
      }
      const position = message.kind === 'event' ? message.event.position : message.position;
      if (until !== null && position > until) return this.reached(until);
      await turns.maybe();
      if (this.checkpoint !== null && position <= this.checkpoint) continue;
      if (message.kind === 'event') {
        const recorded = await this.reactUntilDone(message.event);
        if (recorded === null) return false; // stopped while retrying
        await this.options.afterReaction?.(message.event);
      }
      this.advance(position);
      if (until !== null && position >= until) return true;
      if (until === null) await this.checkCaughtUp();
    }
    return false;
  }

  private reached(position: LogPosition): true {
    if (this.checkpoint === null || this.checkpoint < position) this.advance(position);
    return true;
  }

  /** Reacts, retrying with backoff until it succeeds. Answers whether it appended; null when stopped meanwhile. */
  private async reactUntilDone(event: RecordedEvent): Promise<boolean | null> {
    let delay = this.retry.initialMs;
    for (let attempt = 1; ; attempt++) {
      try {
        const appended = await this.reactOnce(event);
        if (this.failing !== null) {
          this.failing = null;
          this.options.logger?.warn('reaction succeeded after retries', {
            reactor: this.name,
            event: event.id,
            type: event.type,
            attempts: attempt,
          });
          // The saved checkpoint says `failing`: read-your-writes elsewhere waits for this reactor again once it no longer does.
          await this.record(true).catch(() => undefined);
        }
        return appended;
      } catch (error) {
        const message = String((error as Error)?.message ?? error);
        this.options.metrics?.reactorFailures.inc({ reactor: this.name });
        this.lastError = message;
        const first = this.failing === null;
        this.failing = message;
        // Whoever waits for this reactor stops waiting: a failing reaction must not hold requests up.
        for (const waiter of this.waiters) waiter.resolve(false);
        this.options.logger?.error('reaction failed; retrying with backoff', {
          reactor: this.name,
          event: event.id,
          type: event.type,
          position: event.position.toString(),
          attempt,
          error: message,
          retryInMs: delay,
        });
        if (first) await this.record(true).catch(() => undefined);
        await sleep(delay, this.abort.signal);
        if (!this.running) return null;
        delay = Math.min(delay * 2, this.retry.maxMs);
      }
    }
  }

  /** One attempt: whether the reaction appended anything. */
  private async reactOnce(event: RecordedEvent): Promise<boolean> {
    if (this.options.projections) {
      const timeoutMs = this.options.projectionsTimeoutMs ?? 30_000;
      if (!(await this.options.projections.waitFor(event.position, timeoutMs))) {
        throw new Error(`the projections did not apply position ${event.position} within ${timeoutMs} ms`);
      }
    }
    const correlationId = typeof event.metadata.correlationId === 'string' ? event.metadata.correlationId : event.id;
    const services = this.services;
    const context: ReactionContext = {
      caller: { ...this.caller, requestId: correlationId },
      correlationId,
      causationId: event.id,
      // Resolved on use: a reaction that dispatches nothing needs no bus.
      get commandBus() {
        return services.get(CommandBus);
      },
      commands: this.commands,
      reads: this.reads,
      services: this.services,
    };
    let appended: LogPosition | null = null;
    await runInReaction(
      {
        reactor: this.name,
        correlationId,
        causationId: event.id,
        appended: (position) => {
          if (appended === null || position > appended) appended = position;
        },
      },
      () => this.reactor.react(event, context),
    );
    const last = appended as LogPosition | null;
    if (last !== null && (this.appended === null || last > this.appended)) {
      this.appended = last;
      this.history.push({ trigger: event.position, appended: last });
      if (this.history.length > HISTORY_LIMIT) this.floor = this.history.splice(0, this.history.length - HISTORY_LIMIT).at(-1)!.appended;
    }
    return last !== null;
  }

  private advance(position: LogPosition): void {
    this.checkpoint = position;
    for (const waiter of this.waiters) if (waiter.position <= position) waiter.resolve(true);
    void this.record(false);
  }

  private record(now: boolean): Promise<void> {
    return this.checkpoints.record(
      this.name,
      { position: this.checkpoint?.toString() ?? null, appended: this.appended?.toString() ?? null, failing: this.failing },
      now,
    );
  }

  /** On the shared stream: caught up once past the log's head as it was at start (the stream itself never ends). */
  private async checkCaughtUp(): Promise<void> {
    if (this.caughtUp || !this.options.stream) return;
    if (this.startHead === null || (this.checkpoint !== null && this.checkpoint >= this.startHead)) await this.markCaughtUp();
  }

  /** Saved at once: `/health` and a restart see a caught-up reactor as such. */
  private async markCaughtUp(): Promise<void> {
    await this.record(true).catch((error: unknown) =>
      this.options.logger?.warn('could not save a reactor checkpoint', {
        reactor: this.name,
        error: String((error as Error)?.message ?? error),
      }),
    );
    this.caughtUp = true;
    this.caughtUpWaiters.splice(0).forEach((resolve) => resolve());
  }
}
