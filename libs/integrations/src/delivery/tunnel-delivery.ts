import { createHmac, timingSafeEqual } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type GuardedResponse, OutboundError, guardedRequest } from '#platform/outbound/guarded-request';

/** `t=<unix seconds>,v1=<hex hmac>` */
export const SIGNATURE_HEADER = 'x-integration-signature';
/** The event's id (its `eventId`), the same on every attempt, so receivers de-duplicate. */
export const EVENT_ID_HEADER = 'x-integration-event-id';

/** The most of a receiver's answer that is read; its body is not used. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** HMAC-SHA256 with the secret over `${timestamp}.${body}`, hex. */
export function signature(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** The value of the signature header for a body signed at a time (unix seconds). */
function signatureHeader(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${signature(secret, timestamp, body)}`;
}

/**
 * Whether a signature header (`t=<unix seconds>,v1=<hex hmac>`, more than one v1 allowed) signs this
 * body with this secret, at a time no more than toleranceSeconds away from now (either way).
 * The comparison takes the same time whichever character differs.
 */
export function verifySignature(secret: string, header: string, body: string, now: Date, toleranceSeconds = 300): boolean {
  let timestamp: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const separator = part.indexOf('=');
    if (separator < 0) continue;
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined || !/^\d{1,15}$/.test(value)) return false;
      timestamp = Number(value);
    } else if (key === 'v1') {
      candidates.push(value);
    }
  }
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (timestamp === undefined || candidates.length === 0 || !Number.isFinite(nowSeconds)) return false;
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signature(secret, timestamp, body), 'utf8');
  let matched = false;
  for (const candidate of candidates) {
    const given = Buffer.from(candidate.toLowerCase(), 'utf8');
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  return matched;
}

export interface DeliveryAttempt {
  /** When the attempt started, ISO 8601. */
  at: string;
  durationMs: number;
  /** The receiver's HTTP status, when it answered. */
  status?: number;
  /** Why no status came back: `<reason>: <message>` of the OutboundError. */
  error?: string;
}

export interface DeliveryOutcome {
  delivered: boolean;
  attempts: DeliveryAttempt[];
}

export interface DeliveryOptions {
  secret: string;
  /** Attempts in all, the first included (e.g. 6). */
  maxAttempts: number;
  /** The backoff after the first failed attempt is at most this (e.g. 200); it doubles each time. */
  baseDelayMs: number;
  /** No backoff is longer (e.g. 30_000), a Retry-After included. */
  maxDelayMs: number;
  /** Per attempt (e.g. 10_000). */
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  now?: () => Date;
  /** Injectable for tests. */
  sleep?: (ms: number) => Promise<void>;
  /** Jitter source in [0, 1), injectable. */
  random?: () => number;
  /** Injectable. */
  request?: typeof guardedRequest;
}

/**
 * The backoff before the attempt after `attempt` (1 for the wait after the first attempt), with full
 * jitter: uniformly drawn from [0, min(maxDelay, baseDelay × 2^(attempt − 1))].
 */
export function backoffDelay(attempt: number, options: Pick<DeliveryOptions, 'baseDelayMs' | 'maxDelayMs'>, random: () => number): number {
  const exponent = Math.max(0, Math.floor(Number.isFinite(attempt) ? attempt : 1) - 1);
  const ceiling = Math.max(0, Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** exponent));
  const drawn = random();
  const fraction = Number.isFinite(drawn) ? Math.min(1, Math.max(0, drawn)) : 0;
  return Math.floor(fraction * ceiling);
}

/**
 * POSTs one event as JSON to the tunnel, signed: the body is the event itself, as the platform's
 * runtime reads it (`event.type`, `event.installationId`, …). Retries on network errors, time-outs and 5xx/429
 * (and 408) with exponential backoff and full jitter; a 2xx is delivered; 4xx other than 408/429
 * stops (not retried), as do a 1xx/3xx answer (redirects are not followed), a refused URL or address
 * and an answer larger than 64 KiB. Every attempt is signed anew with its own timestamp and carries
 * the same event id. A Retry-After on a 429 or 503 lengthens the backoff, up to maxDelayMs.
 */
export async function deliverToTunnel(
  tunnelUrl: string,
  event: { eventId: string } & Record<string, unknown>,
  options: DeliveryOptions,
): Promise<DeliveryOutcome> {
  if (!Number.isInteger(options.maxAttempts) || options.maxAttempts < 1) {
    throw new RangeError(`maxAttempts must be a positive integer, not ${options.maxAttempts}`);
  }
  const eventId = event?.eventId;
  if (typeof eventId !== 'string' || eventId === '') throw new TypeError('the event has no eventId');
  const body = JSON.stringify(event);
  const now = options.now ?? (() => new Date());
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;
  const request = options.request ?? guardedRequest;

  const attempts: DeliveryAttempt[] = [];
  for (let attempt = 1; ; attempt++) {
    const startedAt = now();
    const started = performance.now();
    const timestamp = Math.floor(startedAt.getTime() / 1000);
    let response: GuardedResponse | undefined;
    let failure: unknown;
    try {
      response = await request(tunnelUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [SIGNATURE_HEADER]: signatureHeader(options.secret, timestamp, body),
          [EVENT_ID_HEADER]: eventId,
        },
        body,
        allowPrivateNetworks: options.allowPrivateNetworks,
        timeMs: options.timeoutMs,
        maxBytes: MAX_RESPONSE_BYTES,
      });
    } catch (error) {
      failure = error;
    }
    const durationMs = Math.round(performance.now() - started);
    const record: DeliveryAttempt = { at: startedAt.toISOString(), durationMs };
    if (response) record.status = response.status;
    else record.error = describe(failure);
    attempts.push(record);

    if (response && response.status >= 200 && response.status <= 299) return { delivered: true, attempts };
    const retryable = response ? retryableStatus(response.status) : retryableFailure(failure);
    if (!retryable || attempt >= options.maxAttempts) return { delivered: false, attempts };

    const backoff = backoffDelay(attempt, options, random);
    const asked = response ? retryAfterMs(response, now()) : undefined;
    await sleep(asked === undefined ? backoff : Math.min(options.maxDelayMs, Math.max(backoff, asked)));
  }
}

function retryableStatus(status: number): boolean {
  return status >= 500 || status === 429 || status === 408;
}

/** Network errors and time-outs are retried; a refused URL or address, or a too large answer, would fail again. */
function retryableFailure(error: unknown): boolean {
  if (error instanceof OutboundError) return error.reason === 'network' || error.reason === 'timeout';
  return false;
}

/** A Retry-After of a 429 or 503, in seconds or as an HTTP date, in milliseconds from now. */
function retryAfterMs(response: GuardedResponse, now: Date): number | undefined {
  if (response.status !== 429 && response.status !== 503) return undefined;
  const value = response.headers['retry-after']?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now.getTime());
}

function describe(error: unknown): string {
  if (error instanceof OutboundError) return `${error.reason}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
