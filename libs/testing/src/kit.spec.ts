/** The kit itself: each check passes on a right answer and fails on a wrong one. */
import type { Decider } from '#event-store/decider';
import { DomainError } from '#platform/errors';
import { positionKey, type Projection } from '#read-store/projections/projection';
import { deciderSpec, inStream, projectionSpec, recordEvents } from '.';

type Event = { type: 'Opened'; data: { id: string } } | { type: 'Closed'; data: { id: string } };
type Command = { kind: 'Open'; id: string } | { kind: 'Close'; id: string } | { kind: 'Explode' };
const door: Decider<Command, Event, { open: boolean }> = {
  initialState: () => ({ open: false }),
  evolve: (_state, event) => ({ open: event.type === 'Opened' }),
  decide(command, state) {
    if (command.kind === 'Explode') throw DomainError.invalid('boom');
    if (command.kind === 'Open') return state.open ? [] : [{ type: 'Opened', data: { id: command.id } }];
    return state.open ? [{ type: 'Closed', data: { id: command.id } }] : DomainError.conflict('already closed');
  },
};
const opened: Event[] = [{ type: 'Opened', data: { id: 'd' } }];

describe('deciderSpec', () => {
  const spec = deciderSpec(door);

  it('passes then() on the events decided, and fails it on others', () => {
    spec.given([]).when({ kind: 'Open', id: 'd' }).then(opened);
    expect(() => spec.given([]).when({ kind: 'Open', id: 'd' }).then([])).toThrow();
  });

  it('fails then() and thenNothing() with the refusal when the decider refuses', () => {
    expect(() => spec.given([]).when({ kind: 'Close', id: 'd' }).then([])).toThrow(/refused the command: 409 already closed/);
    expect(() => spec.given([]).when({ kind: 'Close', id: 'd' }).thenNothing()).toThrow(/refused/);
  });

  it('passes thenNothing() only when nothing is decided', () => {
    spec.given(opened).when({ kind: 'Open', id: 'd' }).thenNothing();
    expect(() => spec.given([]).when({ kind: 'Open', id: 'd' }).thenNothing()).toThrow();
  });

  it('checks thenFails() status and message (exact or pattern), and fails it when events are decided', () => {
    spec.given([]).when({ kind: 'Close', id: 'd' }).thenFails(409);
    spec.given([]).when({ kind: 'Close', id: 'd' }).thenFails(409, 'already closed');
    spec
      .given([])
      .when({ kind: 'Close', id: 'd' })
      .thenFails(409, /closed/);
    expect(() => spec.given([]).when({ kind: 'Close', id: 'd' }).thenFails(404)).toThrow();
    expect(() => spec.given([]).when({ kind: 'Close', id: 'd' }).thenFails(409, 'closed')).toThrow();
    expect(() => spec.given([]).when({ kind: 'Open', id: 'd' }).thenFails(409)).toThrow(/expected a refusal/);
  });

  it('takes a thrown DomainError as the refusal', () => {
    spec.given([]).when({ kind: 'Explode' }).thenFails(400, 'boom');
  });

  it('folds the history, and the decided events, for thenState()', () => {
    spec.given(opened).thenState((state) => expect(state.open).toBe(true));
    spec
      .given(opened)
      .when({ kind: 'Close', id: 'd' })
      .thenState((state) => expect(state.open).toBe(false));
  });
});

/** Counts events per stream: `guarded` skips events at or before the document's last position. */
const counter = (guarded: boolean): Projection => ({
  name: 'counter',
  collections: ['counts'],
  handles: ['Opened', 'Closed'],
  async apply(event, tx) {
    const counts = tx.collection<{ _id: string; n: number; revision: number; _position?: string }>('counts');
    const current = await counts.get(event.streamId);
    if (guarded && current?._position !== undefined && current._position >= positionKey(event.position)) return;
    const seeded = await tx.collection<{ _id: string; offset: number }>('offsets').get(event.streamId);
    await counts.put({
      _id: event.streamId,
      n: (current?.n ?? seeded?.offset ?? 0) + 1,
      revision: event.revision,
      _position: positionKey(event.position),
    });
  },
});
const history = [
  ...inStream('door-a', [opened[0], { type: 'Closed', data: { id: 'd' } }]),
  ...inStream('door-b', opened),
  { type: 'Ignored', data: {}, streamId: 'door-a' },
];

describe('projectionSpec', () => {
  it('records events as the log would: positions in order, revisions per stream', () => {
    expect(recordEvents(history).map(({ streamId, revision, position }) => [streamId, revision, position])).toEqual([
      ['door-a', 0, 1n],
      ['door-a', 1, 2n],
      ['door-b', 0, 3n],
      ['door-a', 2, 4n],
    ]);
  });

  it('compares the documents of the named collections, routing events by handles', async () => {
    await projectionSpec(counter(true))
      .given(history)
      .then({
        counts: [
          { _id: 'door-a', n: 2, revision: 1 },
          { _id: 'door-b', n: 1, revision: 0 },
        ],
      });
    await expect(projectionSpec(counter(true)).given(history).then({ counts: [] })).rejects.toThrow();
  });

  it('compares _position only where the expected document names it', async () => {
    await projectionSpec(counter(true))
      .given(inStream('door-b', opened))
      .then({ counts: [{ _id: 'door-b', n: 1, revision: 0, _position: positionKey(1n) }] });
    await expect(
      projectionSpec(counter(true))
        .given(inStream('door-b', opened))
        .then({ counts: [{ _id: 'door-b', n: 1, revision: 0, _position: 'x' }] }),
    ).rejects.toThrow();
  });

  it('fails every then when applying the history twice changes a document', async () => {
    await expect(projectionSpec(counter(false)).given(history).thenIdempotent()).rejects.toThrow(/a second time/);
    await expect(
      projectionSpec(counter(false))
        .given(history)
        .then({ counts: expect.anything() as never }),
    ).rejects.toThrow(/a second time/);
  });

  it('redelivers chosen events after the history', async () => {
    await projectionSpec(counter(true)).given(history).redelivered(1, 0).thenIdempotent();
  });

  it('fails when an older event delivered again changes a document, which a replay in order would not show', async () => {
    // Last write wins, unguarded: replaying the whole history in order ends the same, an older event alone does not.
    const lastType: Projection = {
      ...counter(false),
      apply: (event, tx) => tx.collection('last').put({ _id: event.streamId, type: event.type }),
      collections: ['last'],
    };
    await projectionSpec(lastType).given(history).thenIdempotent();
    await expect(projectionSpec(lastType).given(history).redelivered(0).thenIdempotent()).rejects.toThrow(/redelivering events 0/);
  });

  it('writes the seeded documents before the first event', async () => {
    await projectionSpec(counter(true), { seed: { offsets: [{ _id: 'door-b', offset: 10 }] } })
      .given(inStream('door-b', opened))
      .then({ counts: [{ _id: 'door-b', n: 11, revision: 0 }] });
  });

  it('hands over the store and the recorded events for queries', async () => {
    await projectionSpec(counter(true))
      .given(history)
      .thenStore(async (reads, recorded) => {
        expect(await reads.collection('counts').count({ n: 2 })).toBe(1);
        expect(recorded).toHaveLength(4);
      });
  });
});
