import { createHash } from 'node:crypto';
import { parseItem } from 'structured-headers';

/**
 * The pure rules of `Idempotency-Key` on POST (the IETF httpapi draft "The Idempotency-Key HTTP
 * Header Field"; docs/api/conventions.md, Retrying a POST): what a well-formed key is, the
 * fingerprint a stored answer is matched against, and what a request meets when its key was seen.
 * The hook that applies them is idempotency.ts.
 */

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** Set on an answer replayed from the record of an earlier request with the same key. */
export const IDEMPOTENT_REPLAYED_HEADER = 'idempotent-replayed';
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** The stored answer's headers: what a client acts on; the rest (request id, rate limit) belongs to each request. */
export const REPLAYED_HEADERS = ['content-type', 'location', 'etag', 'last-modified', 'content-location', 'link'] as const;

export type ParsedKey = { ok: true; key: string } | { ok: false; problem: string };

/**
 * The key of a request: the header is a Structured Field Item whose value is a String (quoted,
 * printable ASCII), 1 to 255 characters. Parameters are ignored, as RFC 9651 says of unknown ones.
 */
export function parseIdempotencyKey(header: string | string[]): ParsedKey {
  const refuse = (problem: string): ParsedKey => ({ ok: false, problem: `Idempotency-Key ${problem}` });
  if (Array.isArray(header)) return refuse('must be sent once');
  let value: unknown;
  try {
    [value] = parseItem(header);
  } catch {
    return refuse('must be a quoted string of printable ASCII characters, such as "8e03978e-40d5-43e8-bc93-6894a57f9324"');
  }
  if (typeof value !== 'string')
    return refuse('must be a quoted string (a Structured Field String), such as "8e03978e-40d5-43e8-bc93-6894a57f9324"');
  if (value.length === 0) return refuse('must not be empty');
  if (value.length > MAX_IDEMPOTENCY_KEY_LENGTH) return refuse(`must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  return { ok: true, key: value };
}

/** Who a key belongs to: keys of different callers never meet. */
export function idempotencyScope(caller: { kind: 'user'; tokenId: string } | { kind: 'admin' } | { kind: 'system'; id: string }): string {
  switch (caller.kind) {
    case 'user':
      return `token:${caller.tokenId}`;
    case 'admin':
      return 'admin';
    case 'system':
      return `system:${caller.id}`;
  }
}

/** The record's id: a digest, so that any key (and scope) makes a valid, fixed-size id. */
export function idempotencyRecordId(scope: string, key: string): string {
  return createHash('sha256')
    .update(JSON.stringify([scope, key]))
    .digest('base64url');
}

/**
 * What the same key must be sent with again: method, path with query, caller and the SHA-256 of
 * the body's bytes as sent (JSON or not: reformatting a JSON body makes another request).
 */
export function requestFingerprint(request: { method: string; url: string; scope: string; bodySha256: string }): string {
  return createHash('sha256')
    .update(JSON.stringify([request.method, request.url, request.scope, request.bodySha256]))
    .digest('base64url');
}

/** A recorded answer. `body` is absent when it was over the limit, or a stream. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  /** The answer as text, or base64 of its bytes when `base64`. */
  body?: string;
  base64?: boolean;
  /** The answer's size in bytes when it was too large to keep (-1: unknown). */
  omittedBytes?: number;
}

export interface IdempotencyRecord {
  _id: string;
  scope: string;
  fingerprint: string;
  state: 'in-progress' | 'completed';
  /** ISO times: when the first request arrived, and when the key is forgotten. */
  createdAt: string;
  expiresAt: string;
  response?: StoredResponse;
}

export type KeyOutcome =
  | { kind: 'run' }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'mismatch' }
  | { kind: 'in-progress' }
  | { kind: 'not-kept'; bytes: number };

/** What a request with this fingerprint meets, given the record of its key (null: none), at `now`. */
export function keyOutcome(record: IdempotencyRecord | null, fingerprint: string, now: Date): KeyOutcome {
  if (record === null || isExpired(record, now)) return { kind: 'run' };
  if (record.fingerprint !== fingerprint) return { kind: 'mismatch' };
  if (record.state === 'in-progress' || record.response === undefined) return { kind: 'in-progress' };
  if (record.response.body === undefined) return { kind: 'not-kept', bytes: record.response.omittedBytes ?? -1 };
  return { kind: 'replay', response: record.response };
}

export function isExpired(record: Pick<IdempotencyRecord, 'expiresAt'>, now: Date): boolean {
  return record.expiresAt <= now.toISOString();
}

export function expiresAt(now: Date, ttlMs: number): string {
  return new Date(now.getTime() + ttlMs).toISOString();
}

/**
 * Whether an answer is recorded: successes and client errors are what the request did or will
 * always do; a server error (5xx) may not happen again, so a retry runs the request anew.
 */
export function isRecordedStatus(status: number): boolean {
  return status < 500;
}

/** The answer to keep: its status, the headers in REPLAYED_HEADERS, and its body unless over `maxBodyBytes`. */
export function storedResponse(
  status: number,
  headers: Record<string, unknown>,
  body: string | Buffer,
  maxBodyBytes: number,
): StoredResponse {
  const kept: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string') kept[name] = value;
    else if (typeof value === 'number') kept[name] = String(value);
  }
  const size = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  if (size > maxBodyBytes) return { status, headers: kept, omittedBytes: size };
  // Text (every JSON answer) is kept as is: base64 would make the kept answers a third larger.
  return typeof body === 'string'
    ? { status, headers: kept, body }
    : { status, headers: kept, body: body.toString('base64'), base64: true };
}
