import type { LogPosition } from '../event-store.port';

/** KurrentDB's position of a record in its transaction log, as the client reports it. */
export interface KurrentDbPosition {
  commit: bigint;
  prepare: bigint;
}

const UINT64_LIMIT = 1n << 64n;
const LOW_64_BITS = UINT64_LIMIT - 1n;

/**
 * Packs KurrentDB's `{ commit, prepare }` into the port's single bigint: `(commit << 64) | prepare`.
 * KurrentDB orders records by commit position, then prepare position; with both under 2^64 the packed
 * values order the same way, so the port's "compare, never do arithmetic" rule holds.
 */
export function packPosition(position: KurrentDbPosition): LogPosition {
  const { commit, prepare } = position;
  if (!isUint64(commit) || !isUint64(prepare)) {
    throw new RangeError(`not a KurrentDB log position: commit ${String(commit)}, prepare ${String(prepare)}`);
  }
  return (commit << 64n) | prepare;
}

/** The inverse of {@link packPosition}. */
export function unpackPosition(position: LogPosition): KurrentDbPosition {
  if (typeof position !== 'bigint' || position < 0n || position >= UINT64_LIMIT << 64n) {
    throw new RangeError(`not a packed KurrentDB log position: ${String(position)}`);
  }
  return { commit: position >> 64n, prepare: position & LOW_64_BITS };
}

/**
 * Whether the client reported a real log position. The server writes `-1` (2^64 - 1 once read as an
 * unsigned 64-bit integer) where a record has no position.
 */
export function hasLogPosition(position: KurrentDbPosition | undefined | null): position is KurrentDbPosition {
  return (
    position != null &&
    isUint64(position.commit) &&
    isUint64(position.prepare) &&
    position.commit !== LOW_64_BITS &&
    position.prepare !== LOW_64_BITS
  );
}

function isUint64(value: unknown): value is bigint {
  return typeof value === 'bigint' && value >= 0n && value < UINT64_LIMIT;
}
