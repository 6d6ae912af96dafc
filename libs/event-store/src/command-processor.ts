import { DomainError, isDomainError } from '#platform/errors';
import type { Decider, DomainEvent } from './decider';
import type { EventMetadata, EventStore, LogPosition, NewEvent } from './event-store.port';
import { EventStoreInputError, WrongExpectedRevisionError } from './errors';

export interface CommandRequest<TCommand, TEvent extends DomainEvent, TState> {
  stream: string;
  decider: Decider<TCommand, TEvent, TState>;
  command: TCommand;
  /** Metadata for every event this command appends. */
  metadata?: EventMetadata;
  /** The revision the client last saw (`If-Match`): another revision fails with 412, without retry. */
  ifMatch?: number;
  /** Upgrades old event shapes on read (docs/architecture.md, Messages and streams). */
  upcast?: (event: DomainEvent) => TEvent;
}

export interface CommandOutcome<TEvent extends DomainEvent, TState> {
  /** What this command appended; empty when the decider decided nothing changes. */
  events: TEvent[];
  /** State after this command's events. */
  state: TState;
  /** Stream revision after this command, or null when the stream still does not exist. */
  revision: number | null;
  /** Log position of the append that carried this command's events (absent when none). */
  position?: LogPosition;
}

export interface CommandProcessorOptions {
  /** How many streams' folded states are kept in memory (least recently used go first). 0 disables. */
  cacheSize?: number;
  /** Most commands decided together and appended in one batch. */
  maxBatch?: number;
  /** How often a batch is re-decided after a concurrency conflict before the conflict is returned. */
  maxRetries?: number;
  /** Called on every concurrency conflict met (metrics). */
  onConflict?: () => void;
}

interface Loaded<S> {
  state: S;
  revision: number | null;
}

interface Pending {
  request: CommandRequest<unknown, DomainEvent, unknown>;
  resolve: (outcome: CommandOutcome<DomainEvent, unknown>) => void;
  reject: (error: unknown) => void;
}

const PAGE = 1000;

/**
 * The one way commands change state (docs/architecture.md, Command processor): load the stream, fold `evolve`, `decide`,
 * append with the expected revision (`no_stream` for creation); on a concurrency conflict, reload
 * and decide again a bounded number of times, then fail with the typed conflict.
 *
 * Two things make it fast without changing those rules:
 * - Folded states are cached per stream with their revision. A load reads only the events after
 *   the cached revision, so the cache is never stale, whoever else appends (other processes, other
 *   code paths), and a command never replays a whole stream.
 * - Commands for the same stream queue up; the queue decides them one after another against the
 *   running state and appends all their events in one batch. Concurrent writers of one stream then
 *   share one durable append instead of conflicting with each other. A command the decider refuses
 *   fails alone; the others proceed.
 */
export class CommandProcessor {
  private readonly cache = new Map<string, { decider: unknown } & Loaded<unknown>>();
  private readonly queues = new Map<string, Pending[]>();
  private readonly cacheSize: number;
  private readonly maxBatch: number;
  private readonly maxRetries: number;

  constructor(
    private readonly store: EventStore,
    private readonly options: CommandProcessorOptions = {},
  ) {
    this.cacheSize = options.cacheSize ?? 10_000;
    this.maxBatch = options.maxBatch ?? 100;
    this.maxRetries = options.maxRetries ?? 3;
  }

  submit<C, E extends DomainEvent, S>(request: CommandRequest<C, E, S>): Promise<CommandOutcome<E, S>> {
    return new Promise((resolve, reject) => {
      const pending = { request, resolve, reject } as unknown as Pending;
      const queue = this.queues.get(request.stream);
      if (queue) {
        queue.push(pending);
        return;
      }
      this.queues.set(request.stream, [pending]);
      // A microtask later, so that commands submitted in the same turn join the first batch.
      queueMicrotask(() => void this.drain(request.stream));
    });
  }

  /** The current state and revision of a stream (from the cache, caught up with the store). */
  async load<C, E extends DomainEvent, S>(
    stream: string,
    decider: Decider<C, E, S>,
    upcast?: (event: DomainEvent) => E,
  ): Promise<Loaded<S>> {
    const cached = this.cache.get(stream);
    let loaded: Loaded<S> =
      cached && cached.decider === decider
        ? { state: cached.state as S, revision: cached.revision }
        : { state: decider.initialState(), revision: null };
    for (;;) {
      const from = loaded.revision === null ? 0 : loaded.revision + 1;
      const page = await this.store.readStream(stream, { fromRevision: from, maxCount: PAGE });
      let { state, revision } = loaded;
      for (const recorded of page) {
        state = decider.evolve(
          state,
          upcast ? upcast({ type: recorded.type, data: recorded.data }) : ({ type: recorded.type, data: recorded.data } as E),
        );
        revision = recorded.revision;
      }
      loaded = { state, revision };
      if (page.length < PAGE) break;
    }
    this.remember(stream, decider, loaded);
    return loaded;
  }

  private async drain(stream: string): Promise<void> {
    const queue = this.queues.get(stream)!;
    while (queue.length > 0) {
      const batch = queue.splice(0, this.maxBatch);
      // One stream, one aggregate type: commands with another decider (never expected) wait for the next round.
      const decider = batch[0].request.decider;
      const later = batch.filter((p) => p.request.decider !== decider);
      if (later.length > 0) queue.unshift(...later);
      await this.process(
        stream,
        batch.filter((p) => p.request.decider === decider),
      );
    }
    this.queues.delete(stream);
  }

  private async process(stream: string, batch: Pending[]): Promise<void> {
    const decider = batch[0].request.decider;
    const upcast = batch[0].request.upcast;
    for (let attempt = 0; ; attempt++) {
      let loaded: Loaded<unknown>;
      try {
        loaded = await this.load(stream, decider, upcast);
      } catch (error) {
        batch.forEach((p) => p.reject(error));
        return;
      }
      const { appended, outcomes, finalState, finalRevision } = this.decideAll(batch, loaded);
      if (appended.length === 0) {
        outcomes.forEach((outcome, i) => (outcome instanceof Error ? batch[i].reject(outcome) : batch[i].resolve(outcome)));
        return;
      }
      try {
        const result = await this.store.appendToStream(stream, appended, loaded.revision === null ? 'no_stream' : loaded.revision);
        this.remember(stream, decider, { state: finalState, revision: finalRevision });
        outcomes.forEach((outcome, i) => {
          if (outcome instanceof Error) batch[i].reject(outcome);
          else batch[i].resolve(outcome.events.length > 0 ? { ...outcome, position: result.position } : outcome);
        });
        return;
      } catch (error) {
        this.cache.delete(stream);
        if (error instanceof EventStoreInputError && batch.length > 1) {
          // Commands that fit the event store's batch limit alone can exceed it together: each is
          // decided and appended on its own, so only a command too large by itself fails.
          for (const pending of batch) await this.process(stream, [pending]);
          return;
        }
        if (!(error instanceof WrongExpectedRevisionError)) {
          batch.forEach((p) => p.reject(error));
          return;
        }
        this.options.onConflict?.();
        if (attempt >= this.maxRetries) {
          batch.forEach((p) => p.reject(error));
          return;
        }
        // With If-Match the client asked for one exact revision: a conflict is final for it.
        const precise = batch.filter((p) => p.request.ifMatch !== undefined);
        precise.forEach((p) => p.reject(error));
        batch = batch.filter((p) => p.request.ifMatch === undefined);
        if (batch.length === 0) return;
      }
    }
  }

  /** Decides each command against the state the commands before it produced. */
  private decideAll(batch: Pending[], loaded: Loaded<unknown>) {
    const decider = batch[0].request.decider;
    let state = loaded.state;
    let revision = loaded.revision;
    const appended: NewEvent[] = [];
    const outcomes: Array<CommandOutcome<DomainEvent, unknown> | Error> = [];
    for (const { request } of batch) {
      let decided: DomainEvent[] | DomainError;
      try {
        decided = decider.decide(request.command, state);
      } catch (error) {
        outcomes.push(error as Error);
        continue;
      }
      if (isDomainError(decided)) {
        outcomes.push(decided);
        continue;
      }
      // Preconditions are judged only for a command that would succeed without them (RFC 9110,
      // 13.2.1): a caller refused outright hears why (403, 404, 409), not that its copy is stale.
      if (request.ifMatch !== undefined && request.ifMatch !== revision) {
        outcomes.push(
          DomainError.preconditionFailed(
            `the resource has changed: If-Match names revision ${request.ifMatch} but it is at ${revision ?? 'none'}`,
          ),
        );
        continue;
      }
      if (decided.length > 0) {
        state = decided.reduce(decider.evolve, state);
        revision = (revision ?? -1) + decided.length;
        appended.push(...decided.map((event) => ({ type: event.type, data: event.data, metadata: request.metadata ?? {} })));
      }
      outcomes.push({ events: decided, state, revision });
    }
    return { appended, outcomes, finalState: state, finalRevision: revision };
  }

  private remember(stream: string, decider: unknown, loaded: Loaded<unknown>): void {
    if (this.cacheSize === 0) return;
    this.cache.delete(stream);
    this.cache.set(stream, { decider, ...loaded });
    if (this.cache.size > this.cacheSize) this.cache.delete(this.cache.keys().next().value!);
  }
}
