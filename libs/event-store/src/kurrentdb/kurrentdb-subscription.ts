/** A catch-up subscription to KurrentDB's $all as the event store port's `LogSubscription`. */
import type { AllStreamResolvedEvent, AllStreamSubscription } from '@kurrent/kurrentdb-client';
import type { LogPosition, LogSubscription, SubscriptionMessage } from '../event-store.port';
import { EventStoreUnavailableError } from '../errors';
import { subscriptionError } from './kurrentdb-errors';
import { decodeRecorded, isSystemEvent } from './kurrentdb-records';

/** Marker pushed into the client's stream, in order with its events, when the server says "caught up". */
const CAUGHT_UP: unique symbol = Symbol('kurrentdb caught up');

/** The client's subscription object, as far as this adapter uses it (a test can supply its own). */
export type KurrentDbSubscriptionSource = Pick<
  AllStreamSubscription,
  'on' | 'once' | 'push' | 'destroy' | 'destroyed' | 'unsubscribe' | typeof Symbol.asyncIterator
>;

/**
 * A catch-up subscription to $all as a `LogSubscription`.
 *
 * The client's subscription is a Node object-mode stream that signals "caught up" as an event emitted
 * while it processes the server's message; events it processed earlier may still sit in its buffer.
 * The listener therefore pushes a marker into the same buffer, so the `caughtUp` message comes out in
 * order, after every event delivered before it. Reading the stream with for-await pulls one item at a
 * time, so the stream's high-water mark bounds the buffer and pauses the gRPC call when it is full.
 */
export class KurrentDbSubscription implements LogSubscription {
  private closed = false;
  private released = false;
  private readonly iterator: AsyncGenerator<SubscriptionMessage, void, undefined>;
  /**
   * `SubscribeOptions.types`, applied here rather than with the server's event-type filter: a filtered
   * server subscription reports its position only every `checkpointInterval` windows of matches, so a
   * consumer would not learn that it passed an event it does not handle until much later, and
   * read-your-writes waits for exactly that.
   */
  private readonly types: ReadonlySet<string> | undefined;

  constructor(
    private readonly source: KurrentDbSubscriptionSource,
    private readonly after: LogPosition | undefined,
    private readonly onRelease: (subscription: KurrentDbSubscription) => void = () => undefined,
    types?: readonly string[],
  ) {
    this.types = types === undefined ? undefined : new Set(types);
    source.once('caughtUp', () => {
      if (!source.destroyed) source.push(CAUGHT_UP);
    });
    // The client emits errors on the stream without destroying it; destroying it with the error makes
    // sure a reader that is waiting, or arrives later, sees it (and that nothing goes unhandled).
    source.on('error', (error: Error) => {
      if (!source.destroyed) source.destroy(error);
    });
    this.iterator = this.messages();
  }

  [Symbol.asyncIterator](): AsyncIterator<SubscriptionMessage> {
    return this.iterator;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.release();
  }

  private async *messages(): AsyncGenerator<SubscriptionMessage, void, undefined> {
    let last = this.after;
    let caughtUp = false;
    try {
      for await (const item of this.source as AsyncIterable<AllStreamResolvedEvent | typeof CAUGHT_UP>) {
        if (this.closed) return;
        if (item === CAUGHT_UP) {
          if (!caughtUp) {
            caughtUp = true;
            yield { kind: 'caughtUp', position: last ?? null };
          }
          continue;
        }
        const event = decodeRecorded(item.event);
        if (!event || isSystemEvent(event)) continue;
        // Exclusive start, and never a duplicate should the server repeat itself.
        if (last !== undefined && event.position <= last) continue;
        last = event.position;
        yield this.types === undefined || this.types.has(event.type)
          ? { kind: 'event', event }
          : { kind: 'checkpoint', position: event.position };
      }
    } catch (error) {
      if (this.closed) return;
      throw subscriptionError(error);
    } finally {
      await this.release();
    }
    if (!this.closed) throw new EventStoreUnavailableError('the KurrentDB subscription ended without being closed');
  }

  private async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    this.onRelease(this);
    try {
      await this.source.unsubscribe();
    } catch {
      // The call never started or already failed: nothing to cancel.
    }
    if (!this.source.destroyed) this.source.destroy();
  }
}
