/**
 * Given/when/then for deciders: the history is folded with `evolve`, the command is decided on
 * the resulting state, and the outcome is compared. Pure: no stores, no clock.
 *
 *   const spec = deciderSpec(teamDecider);
 *   spec.given(created).when(rename(ada)).then([renamed]);
 *   spec.given(created).when(rename(ada, 'Writers')).thenNothing();
 *   spec.given([]).when(rename(ada)).thenFails(404, 'no team t1');
 *   spec.given(created).thenState((state) => expect(state.title).toBe('Writers'));
 */
import { DomainError } from '#platform/errors';
import type { Decider, DomainEvent } from '#event-store/decider';

/** The event type of a decider, for typing histories kept in constants. */
export type EventOf<TDecider> = TDecider extends Decider<any, infer TEvent, any> ? TEvent : never;
/** The command type of a decider. */
export type CommandOf<TDecider> = TDecider extends Decider<infer TCommand, any, any> ? TCommand : never;

export interface DeciderGiven<TCommand, TEvent extends DomainEvent, TState> {
  when(command: TCommand): DeciderWhen<TEvent, TState>;
  /** Asserts on the state the history folds to (the `evolve` side of the decider). */
  thenState(assert: (state: TState) => void): void;
}

export interface DeciderWhen<TEvent extends DomainEvent, TState> {
  /** The command succeeds with exactly these events, in this order. */
  then(expected: readonly TEvent[]): void;
  /** The command succeeds with as many events as given, each matching its partial (`toMatchObject`). */
  thenMatches(expected: readonly unknown[]): void;
  /** The command succeeds and appends nothing (an idempotent repeat or a no-op change). */
  thenNothing(): void;
  /** The command is refused with a DomainError of this HTTP status; `message` is the exact message or a pattern. */
  thenFails(status: number, message?: RegExp | string): void;
  /** The command succeeds; asserts on the state after the history and the events it decided. */
  thenState(assert: (state: TState) => void): void;
}

export interface DeciderSpec<TCommand, TEvent extends DomainEvent, TState> {
  given(events?: readonly TEvent[]): DeciderGiven<TCommand, TEvent, TState>;
}

export function deciderSpec<TCommand, TEvent extends DomainEvent, TState>(
  decider: Decider<TCommand, TEvent, TState>,
): DeciderSpec<TCommand, TEvent, TState> {
  const fold = (events: readonly TEvent[]) => events.reduce(decider.evolve, decider.initialState());
  return {
    given(history = []) {
      return {
        thenState(assert) {
          assert(fold(history));
        },
        when(command) {
          const decide = (): TEvent[] | DomainError => {
            // A decider may throw its refusal instead of returning it; both mean the same here.
            try {
              return decider.decide(command, fold(history));
            } catch (error) {
              if (error instanceof DomainError) return error;
              throw error;
            }
          };
          const succeeded = (): TEvent[] => {
            const result = decide();
            if (result instanceof DomainError)
              throw new Error(`expected events, but the decider refused the command: ${result.status} ${result.message}`);
            return result;
          };
          return {
            then(expected) {
              expect(succeeded()).toEqual(expected);
            },
            thenMatches(expected) {
              const events = succeeded();
              expect(events).toHaveLength(expected.length);
              expect(events).toMatchObject(expected as unknown[]);
            },
            thenNothing() {
              expect(succeeded()).toEqual([]);
            },
            thenFails(status, message) {
              const result = decide();
              if (!(result instanceof DomainError))
                throw new Error(`expected a refusal with status ${status}, but the decider decided ${JSON.stringify(result)}`);
              expect({ status: result.status, message: result.message }).toEqual({
                status,
                message:
                  message === undefined ? expect.any(String) : typeof message === 'string' ? message : expect.stringMatching(message),
              });
            },
            thenState(assert) {
              assert(fold([...history, ...succeeded()]));
            },
          };
        },
      };
    },
  };
}
