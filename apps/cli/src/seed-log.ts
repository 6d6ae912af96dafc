import { randomUUID } from 'node:crypto';
import type { Decider, DomainEvent } from '#event-store/decider';
import type { EventStore, NewEvent } from '#event-store/event-store.port';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { commandMetadata } from '#runtime/command-runner';

/** Events of one stream per append: well under the batch limit for the seed's events (a few KB each at most). */
const EVENTS_PER_APPEND = 200;

interface StreamEntry {
  state: unknown;
  /** Revision of the stream's last decided event; -1 before its first. */
  revision: number;
}

interface PendingStream {
  /** The stream's revision before its first pending event: the append's expected revision. */
  expected: number;
  events: NewEvent[];
}

/**
 * The log the CLI's `seed` writes: each command goes through its aggregate's own decider (the
 * state folded with `evolve`, as the command processor does), the events get the metadata the
 * command runner stamps, and they are appended to the event store in large batches: one append per
 * stream per flush, all streams of a flush at once, so LMDB commits them in a few transactions.
 */
export class SeedLog {
  private readonly streams = new Map<string, StreamEntry>();
  private pending = new Map<string, PendingStream>();
  private pendingEvents = 0;
  /** Events appended so far. */
  appended = 0;

  constructor(
    private readonly store: EventStore,
    /** Pending events at which `decide` callers should flush (`shouldFlush`). */
    private readonly flushAt = 50_000,
  ) {}

  /** Decides `command` on the stream's current state; a refusal is a bug of the seed, so it throws. */
  decide<C, E extends DomainEvent, S>(stream: string, decider: Decider<C, E, S>, command: C, caller: Caller, now: string): E[] {
    let entry = this.streams.get(stream);
    if (!entry) this.streams.set(stream, (entry = { state: decider.initialState(), revision: -1 }));
    const decided = decider.decide(command, entry.state as S);
    if (decided instanceof DomainError)
      throw new Error(
        `the seed's command ${JSON.stringify((command as { kind?: string }).kind)} on ${stream} was refused: ${decided.message}`,
      );
    if (decided.length === 0) return decided;
    let state = entry.state as S;
    for (const event of decided) state = decider.evolve(state, event);
    entry.state = state;
    let pending = this.pending.get(stream);
    if (!pending) this.pending.set(stream, (pending = { expected: entry.revision, events: [] }));
    entry.revision += decided.length;
    const requestId = randomUUID();
    const metadata = commandMetadata(caller, {
      source: 'api',
      occurredAt: now,
      requestId,
      correlationId: requestId,
      causationId: requestId,
    });
    for (const event of decided) pending.events.push({ type: event.type, data: event.data, metadata });
    this.pendingEvents += decided.length;
    return decided;
  }

  /** The stream's state as its decider folded it (its initial state when it has none). */
  state<S>(stream: string, decider: Decider<unknown, DomainEvent, S>): S {
    return (this.streams.get(stream)?.state as S | undefined) ?? decider.initialState();
  }

  /** Drops a stream that will get no more events from the seed, so its state does not stay in memory. */
  forget(stream: string): void {
    this.streams.delete(stream);
  }

  get shouldFlush(): boolean {
    return this.pendingEvents >= this.flushAt;
  }

  get decided(): number {
    return this.appended + this.pendingEvents;
  }

  /** Appends every pending event: all streams concurrently (one LMDB transaction for most), each stream's chunks in order. */
  async flush(): Promise<void> {
    if (this.pendingEvents === 0) return;
    const batch = this.pending;
    const count = this.pendingEvents;
    this.pending = new Map();
    this.pendingEvents = 0;
    await Promise.all(
      [...batch].map(async ([stream, { expected, events }]) => {
        let revision = expected;
        for (let start = 0; start < events.length; start += EVENTS_PER_APPEND) {
          const chunk = events.slice(start, start + EVENTS_PER_APPEND);
          await this.store.appendToStream(stream, chunk, revision === -1 ? 'no_stream' : revision);
          revision += chunk.length;
        }
      }),
    );
    this.appended += count;
  }
}
