/** KurrentDB client errors translated to the event store port's errors (pure). */
import type { ExpectedRevision } from '../event-store.port';
import { EventStoreInputError, EventStoreUnavailableError, WrongExpectedRevisionError } from '../errors';
import { fromStreamState, toActualRevision } from './kurrentdb-records';

/** gRPC status codes the adapter reads on errors (`@grpc/grpc-js` `status`). */
export const GRPC_STATUS = {
  CANCELLED: 1,
  UNKNOWN: 2,
  DEADLINE_EXCEEDED: 4,
  RESOURCE_EXHAUSTED: 8,
  UNAVAILABLE: 14,
} as const;

/** Client error `type`s (the client's `ErrorType` values) that mean "the store could not be reached in time". */
const UNAVAILABLE_TYPES = new Set(['unavailable', 'deadline-exceeded', 'timeout', 'not-leader', 'cancelled']);
/** Statuses that say nothing about the request itself, only that the server did not answer it (in time): retry later. */
const UNAVAILABLE_CODES = new Set<number>([
  GRPC_STATUS.CANCELLED,
  GRPC_STATUS.DEADLINE_EXCEEDED,
  GRPC_STATUS.RESOURCE_EXHAUSTED,
  GRPC_STATUS.UNAVAILABLE,
]);
/** A starting or overloaded node answers appends with these messages, which the client reports as `UnknownError`. */
const NOT_READY = /server is (not ready|busy)/i;
/**
 * What an `UnknownError` (or gRPC UNKNOWN) says when its cause is the transport, not the request:
 * grpc-js reports broken connections of streaming calls as UNKNOWN, and the client's native read
 * bridge reports the gRPC statuses it does not map itself (deadline, resource exhausted, cancelled…)
 * and connection failures as `UnknownError` with the status in the message and no code.
 */
const TRANSPORT_FAILURE =
  /client error \(connect\)|connection (refused|reset|closed|error)|transport error|grpc connection error|socket hang up|broken pipe|write after end|goaway|rst_stream|stream removed|econn(reset|refused|aborted)|epipe|etimedout|ehostunreach|enotfound|eai_again/i;
const UNAVAILABLE_STATUS =
  /\b(deadline_?exceeded|unavailable|resource_?exhausted|cancelled)\b|deadline (exceeded|expired)|service is currently unavailable|resource has been exhausted|operation was cancelled/i;

/**
 * Translates a client error into the port's errors: a wrong expected version becomes
 * `WrongExpectedRevisionError`; an unreachable, timed-out or non-leader server (the client's
 * `UnavailableError` family, a gRPC CANCELLED, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED or UNAVAILABLE,
 * an unknown error caused by the transport, or a node answering "Server Is Not Ready/Busy") becomes
 * `EventStoreUnavailableError` (503, retry later) rather than an internal error; an
 * append over the server's size limit becomes
 * `EventStoreInputError`. Anything else is returned as it came.
 */
export function toPortError(error: unknown, stream?: string, expected?: ExpectedRevision): Error {
  if (error instanceof WrongExpectedRevisionError || error instanceof EventStoreInputError || error instanceof EventStoreUnavailableError) {
    return error;
  }
  const type = errorType(error);
  if (type === 'maximum-append-size-exceeded' || type === 'append-record-size-exceeded' || type === 'transaction-max-size-exceeded') {
    return new EventStoreInputError(`the append is larger than KurrentDB accepts: ${messageOf(error)}`);
  }
  if (type === 'wrong-expected-version') {
    const details = error as { streamName?: unknown; expectedState?: unknown; actualState?: unknown };
    const name = stream ?? (typeof details.streamName === 'string' ? details.streamName : 'unknown stream');
    return new WrongExpectedRevisionError(name, expected ?? fromStreamState(details.expectedState), toActualRevision(details.actualState));
  }
  if (isUnavailable(error, type)) {
    return new EventStoreUnavailableError(`KurrentDB is unavailable: ${messageOf(error)}`, error);
  }
  return error instanceof Error ? error : new Error(messageOf(error));
}

/**
 * Whether an error means "the server did not answer (in time)" rather than "the request is wrong":
 * the client's unavailable family, a gRPC status in `UNAVAILABLE_CODES`, or an unknown error (gRPC
 * UNKNOWN, or the client's `UnknownError`, which its read bridge uses for every status it does not
 * map and carries no code) whose message names such a status or a transport failure.
 */
function isUnavailable(error: unknown, type: string | undefined): boolean {
  if (type !== undefined && UNAVAILABLE_TYPES.has(type)) return true;
  const code = grpcCode(error);
  if (code !== undefined && UNAVAILABLE_CODES.has(code)) return true;
  if (code !== undefined ? code !== GRPC_STATUS.UNKNOWN : type !== 'unknown') return false;
  const message = messageOf(error);
  return NOT_READY.test(message) || TRANSPORT_FAILURE.test(message) || UNAVAILABLE_STATUS.test(message);
}

/** A failure of a running subscription: always an `EventStoreUnavailableError`, so callers resubscribe. */
export function subscriptionError(error: unknown): EventStoreUnavailableError {
  const mapped = toPortError(error);
  if (mapped instanceof EventStoreUnavailableError) return mapped;
  return new EventStoreUnavailableError(`the KurrentDB subscription dropped: ${messageOf(error)}`, error);
}

export function isStreamNotFound(error: unknown): boolean {
  return errorType(error) === 'stream-not-found';
}

function errorType(error: unknown): string | undefined {
  const type = (error as { type?: unknown } | null | undefined)?.type;
  return typeof type === 'string' ? type : undefined;
}

function grpcCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  const message = (error as { message?: unknown } | null | undefined)?.message;
  if (typeof message === 'string' && message) return message;
  const details = (error as { details?: unknown } | null | undefined)?.details;
  if (typeof details === 'string' && details) return details;
  return String(error);
}
