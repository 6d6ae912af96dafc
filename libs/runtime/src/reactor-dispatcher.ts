import type { LogPosition, RecordedEvent, SubscriptionMessage } from '#event-store/event-store.port';

/** Where the shared stream comes from: the projection runner, which reads the log once and tells what it committed. */
export interface CommittedEventSource {
  /** The last position the projections committed. */
  position(): LogPosition | null;
  onCommitted(listener: (events: readonly RecordedEvent[]) => void): void;
}

/** What a shared subscription yields: events and checkpoints as a log subscription does, and `behind` when its queue overflowed. */
export type StreamMessage = SubscriptionMessage | { kind: 'behind' };

/** Events a subscriber may fall behind the shared stream by before it is dropped from it to catch up from the log. */
export const DEFAULT_QUEUE_LIMIT = 10_000;

/**
 * The process's one subscription to the log, shared by its reactors (docs/read-side.md, Reactors):
 * the projection runner reads each event once, applies it, and after each committed batch hands the
 * events, in memory and in order, to every reactor handling their types. Reactors therefore see an
 * event only once the read models show it. Each subscriber has its own bounded queue, so a slow or
 * failing reactor holds up neither the projections nor the other reactors; one that falls further
 * behind than its queue holds (or starts from an older checkpoint) reads the log on its own up to
 * the position it rejoined at, then drains its queue (`SharedSubscription.rejoin`).
 */
export class ReactorDispatcher {
  private readonly subscribers = new Set<SharedSubscription>();

  constructor(
    private readonly source: CommittedEventSource,
    private readonly queueLimit = DEFAULT_QUEUE_LIMIT,
  ) {
    source.onCommitted((events) => this.publish(events));
  }

  /** Joins the stream at the projections' position: every event of `types` committed after it is queued. */
  join(types: readonly string[]): SharedSubscription {
    const subscription = new SharedSubscription(
      new Set(types),
      this.queueLimit,
      () => this.source.position(),
      () => this.subscribers.delete(subscription),
    );
    this.subscribers.add(subscription);
    return subscription;
  }

  private publish(events: readonly RecordedEvent[]): void {
    if (events.length === 0) return;
    const last = events[events.length - 1].position;
    for (const subscriber of this.subscribers) subscriber.offer(events, last);
  }
}

/**
 * One subscriber's view of the shared stream: its queue of the events it handles committed after
 * `from`, and `checkpoint` messages for the stretches it does not handle (it never ends, so it
 * sends no `caughtUp`). When more than the limit wait, the queue is dropped and `behind` is
 * yielded: the subscriber calls `rejoin()`, catches up from the log up to the new `from`, and
 * continues here.
 */
export class SharedSubscription implements AsyncIterable<StreamMessage> {
  /** Every event handled after this position is queued (null: from the start of the log). */
  from: LogPosition | null = null;
  private queue: RecordedEvent[] = [];
  private head = 0;
  /** Every committed event up to here has been offered. */
  private covered: LogPosition | null = null;
  /** The last position yielded. */
  private delivered: LogPosition | null = null;
  private behind = false;
  private closed = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly types: ReadonlySet<string>,
    private readonly limit: number,
    private readonly position: () => LogPosition | null,
    private readonly onClose: () => void,
  ) {
    this.rejoin();
  }

  /** Drops the queue and starts it again at the projections' position (synchronously: nothing committed meanwhile is missed). */
  rejoin(): void {
    this.queue = [];
    this.head = 0;
    this.behind = false;
    this.from = this.position();
    this.covered = this.from;
    this.delivered = this.from;
  }

  offer(events: readonly RecordedEvent[], last: LogPosition): void {
    if (this.closed || this.behind) return;
    for (const event of events) {
      if (!this.types.has(event.type)) continue;
      if (this.queue.length - this.head >= this.limit) {
        // Memory stays bounded: the log has these events, and the subscriber reads them there.
        this.behind = true;
        this.queue = [];
        this.head = 0;
        break;
      }
      this.queue.push(event);
    }
    if (!this.behind) this.covered = last;
    this.wake?.();
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamMessage> {
    return { next: () => this.next() };
  }

  private async next(): Promise<IteratorResult<StreamMessage>> {
    for (;;) {
      if (this.closed) return { done: true, value: undefined };
      if (this.behind) return { done: false, value: { kind: 'behind' } };
      if (this.head < this.queue.length) {
        const event = this.queue[this.head++];
        // Drop what was taken once it is most of the array, so a long-lived queue does not keep it all.
        if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
          this.queue = this.queue.slice(this.head);
          this.head = 0;
        }
        this.delivered = event.position;
        return { done: false, value: { kind: 'event', event } };
      }
      if (this.covered !== null && (this.delivered === null || this.covered > this.delivered)) {
        this.delivered = this.covered;
        return { done: false, value: { kind: 'checkpoint', position: this.covered } };
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
  }

  /** Leaves the stream; a pending `next()` resolves as done. */
  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.queue = [];
      this.onClose();
      this.wake?.();
    }
    return Promise.resolve();
  }
}
