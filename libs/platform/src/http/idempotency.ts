import { createHash, type Hash } from 'node:crypto';
import { pipeline, Transform } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock';
import { log } from '../logging';
import type { Caller } from './auth';
import { ApiError, sendError } from './error-envelope';
import {
  expiresAt,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  idempotencyRecordId,
  idempotencyScope,
  isRecordedStatus,
  keyOutcome,
  parseIdempotencyKey,
  requestFingerprint,
  storedResponse,
  type KeyOutcome,
  type StoredResponse,
} from './idempotency-key';
import type { IdempotencyRecords } from './idempotency-records';

/** How long a key is remembered after its first request. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;
/** Larger answers are not kept: a retry is told so (409) rather than answered again. */
export const MAX_STORED_RESPONSE_BYTES = 64 * 1024;
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

export interface IdempotencyOptions {
  /** Only POSTs under this prefix take the header into account. */
  prefix: string;
  records: IdempotencyRecords;
  clock: Clock;
  /** False while the read models are rebuilt at start: the expired records are not swept meanwhile. */
  isReady?: () => boolean;
  ttlMs?: number;
  maxStoredResponseBytes?: number;
}

/** What the hooks note on a request that carries a key. */
interface KeyedRequest {
  idempotency: { key: string; hash: Hash; recordId?: string; settled?: boolean } | null;
  caller?: Caller | null;
}

/**
 * `Idempotency-Key` on every POST under the prefix (docs/api/conventions.md, Retrying a POST): the
 * first request with a key runs and its answer is recorded; the same request again is answered from
 * the record (`Idempotent-Replayed: true`) without running; the key with another request is 422,
 * while the first still runs 409, a malformed key 400. Requests without a verified caller ignore the
 * key: keys belong to a caller, and anonymous requests have none.
 *
 * Three hooks: `preParsing` hashes the body's bytes as they stream to the parser (any media type),
 * `preHandler` decides from the record, `onSend` records the answer before it leaves, so an answer a
 * client received is always on record.
 */
export function registerIdempotency(fastify: FastifyInstance, options: IdempotencyOptions): void {
  const { prefix, records, clock } = options;
  const ttlMs = options.ttlMs ?? IDEMPOTENCY_KEY_TTL_MS;
  const maxBytes = options.maxStoredResponseBytes ?? MAX_STORED_RESPONSE_BYTES;
  fastify.decorateRequest('idempotency', null);

  fastify.addHook('preParsing', (request, reply, payload, done) => {
    const header = request.headers[IDEMPOTENCY_KEY_HEADER];
    if (header === undefined || request.method !== 'POST' || !request.url.startsWith(prefix)) return done(null, payload);
    const parsed = parseIdempotencyKey(header);
    // Answered without `done`: the request goes no further (as in the front door).
    if (!parsed.ok) return sendError(reply, new ApiError(400, parsed.problem), request.id);
    if (!(request as unknown as KeyedRequest).caller) return done(null, payload);
    const hash = createHash('sha256');
    (request as unknown as KeyedRequest).idempotency = { key: parsed.key, hash };
    const hashing = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        hash.update(chunk);
        callback(null, chunk);
      },
    });
    // A failed upload fails the parse through the returned stream, as it would have without it.
    pipeline(payload, hashing, () => {});
    done(null, hashing);
  });

  fastify.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    const keyed = (request as unknown as KeyedRequest).idempotency;
    const caller = (request as unknown as KeyedRequest).caller;
    if (!keyed || !caller) return;
    try {
      return await decide(request, reply, keyed, caller);
    } catch (error) {
      // A store that fails here fails the request, in the envelope (503 when unavailable), before it runs.
      sendError(reply, error, request.id);
      return reply;
    }
  });

  async function decide(
    request: FastifyRequest,
    reply: FastifyReply,
    keyed: NonNullable<KeyedRequest['idempotency']>,
    caller: Caller,
  ): Promise<FastifyReply | undefined> {
    const scope = idempotencyScope(caller);
    const id = idempotencyRecordId(scope, keyed.key);
    const fingerprint = requestFingerprint({ method: request.method, url: request.url, scope, bodySha256: keyed.hash.digest('hex') });
    const now = clock.now();
    let outcome = keyOutcome(await records.get(id), fingerprint, now);
    if (outcome.kind === 'run') {
      const record = {
        _id: id,
        scope,
        fingerprint,
        state: 'in-progress' as const,
        createdAt: now.toISOString(),
        expiresAt: expiresAt(now, ttlMs),
      };
      // The claim is an insert on the record's id: of requests racing for a key, one gets it.
      if (await records.claim(record, now)) {
        keyed.recordId = id;
        return;
      }
      // Another request claimed it between the read and the claim.
      outcome = keyOutcome(await records.get(id), fingerprint, now);
      if (outcome.kind === 'run') outcome = { kind: 'in-progress' };
    }
    if (outcome.kind === 'replay') return replay(reply, outcome.response);
    return refuse(reply, outcome, request.id);
  }

  fastify.addHook('onSend', async (request, reply, payload) => {
    const keyed = (request as unknown as KeyedRequest).idempotency;
    if (!keyed?.recordId || keyed.settled) return payload;
    keyed.settled = true;
    const id = keyed.recordId;
    try {
      if (isRecordedStatus(reply.statusCode)) {
        const body = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : payload == null ? '' : null;
        // A streamed answer cannot be kept; its size is unknown.
        const response =
          body === null
            ? { status: reply.statusCode, headers: {}, omittedBytes: -1 }
            : storedResponse(reply.statusCode, reply.getHeaders(), body, maxBytes);
        await records.complete(id, response);
      } else {
        await records.release(id);
      }
    } catch (error) {
      // The answer still goes out; the key stays in progress until it expires, so a retry cannot run twice.
      log.error({ err: error, requestId: request.id }, 'recording the answer of an Idempotency-Key failed');
    }
    return payload;
  });

  const sweeper = setInterval(() => {
    if (options.isReady && !options.isReady()) return;
    records.sweep(clock.now()).catch((error: unknown) => log.warn({ err: error }, 'forgetting expired Idempotency-Key records failed'));
  }, SWEEP_INTERVAL_MS);
  sweeper.unref();
  fastify.addHook('onClose', (_instance, done) => {
    clearInterval(sweeper);
    done();
  });
}

function replay(reply: FastifyReply, response: StoredResponse): FastifyReply {
  void reply.status(response.status).headers(response.headers).header(IDEMPOTENT_REPLAYED_HEADER, 'true');
  const body = response.body ?? '';
  return reply.send(response.base64 ? Buffer.from(body, 'base64') : body);
}

function refuse(reply: FastifyReply, outcome: Exclude<KeyOutcome, { kind: 'run' | 'replay' }>, requestId: string): FastifyReply {
  switch (outcome.kind) {
    case 'mismatch':
      sendError(
        reply,
        new ApiError(422, 'this Idempotency-Key was used with another request (method, path or body): use a new key for a new request'),
        requestId,
      );
      break;
    case 'in-progress':
      sendError(
        reply,
        new ApiError(
          409,
          'a request with this Idempotency-Key is still being processed, or was interrupted before its answer was recorded: retry later, or check the resource',
        ),
        requestId,
      );
      break;
    case 'not-kept':
      sendError(
        reply,
        new ApiError(
          409,
          `the request with this Idempotency-Key completed, but its answer${outcome.bytes >= 0 ? ` (${outcome.bytes} bytes)` : ''} was too large to keep`,
        ),
        requestId,
      );
      break;
  }
  return reply;
}
