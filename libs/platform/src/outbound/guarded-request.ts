import { promises as dns } from 'node:dns';
import type { ClientRequest, IncomingMessage } from 'node:http';
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { pipeline, type Readable, Transform } from 'node:stream';
import { refusedAddressRange } from './address-policy';

export interface GuardedRequestOptions {
  /** GET unless told; one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS. */
  method?: string;
  /**
   * Sent as given, except the ones the request sets itself: Host (from the URL), Content-Length
   * (from the body) and the hop-by-hop headers (Connection, Upgrade, Transfer-Encoding, ...).
   */
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Allows loopback, private, link-local and the other non-public addresses (refusedAddressRange). */
  allowPrivateNetworks: boolean;
  /** For the whole request: resolving, connecting, sending and reading the body. */
  timeMs: number;
  /** The response body is aborted as soon as it grows past this. */
  maxBytes: number;
  /** Resolves a host name to all its addresses (tests answer without DNS). */
  lookup?: (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;
  /**
   * Sees the status and headers before the body is read: `skip` answers without reading the body
   * (an empty body), and anything it throws rejects the request as it is (a redirect to follow, a
   * status or a content type refused, without downloading what will not be used).
   */
  inspect?: (status: number, headers: Record<string, string>) => 'read' | 'skip';
  /**
   * Takes the body as it arrives instead of collecting it (the response's `body` is then empty): a
   * stream that fails with 'too-large' past maxBytes, read with backpressure; the request settles
   * once the receiver's promise does.
   */
  receive?: (body: Readable) => Promise<void>;
}

export interface GuardedResponse {
  status: number;
  /** Lower-case names; a header sent more than once is joined with ', '. */
  headers: Record<string, string>;
  body: Buffer;
}

export type OutboundFailure = 'refused' | 'timeout' | 'too-large' | 'network';

/** Why a request was not made or not completed: 'refused' (URL/address not allowed), 'timeout', 'too-large', 'network'. */
export class OutboundError extends Error {
  override readonly name: string = 'OutboundError';

  constructor(
    readonly reason: OutboundFailure,
    message: string,
  ) {
    super(message);
  }
}

/** What `inspect` threw, carried through the request's own error handling unchanged. */
class InspectRejection {
  constructor(readonly cause: unknown) {}
}

interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Set by the request itself, or hop-by-hop: a caller's value could smuggle a second request or an upgrade. */
const CONTROLLED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'proxy-connection',
  'proxy-authorization',
  'expect',
]);
const USER_AGENT = 'docs-platform/1.0';

/**
 * Makes one HTTP request to a URL on the public internet only (unless private networks are allowed),
 * guarding the service against server-side request forgery: http and https only, no credentials in
 * the URL; the host is resolved first and every address it resolves to is checked, and the
 * connection goes to the checked address (so a second DNS answer cannot swap it), with the URL's host
 * name kept for the Host header and TLS (SNI and certificate check). Redirects are not followed: a
 * 3xx is returned as it is. Any status is returned; only a request that was refused or not completed
 * throws, an OutboundError.
 */
export async function guardedRequest(url: string, options: GuardedRequestOptions): Promise<GuardedResponse> {
  const target = parseOutboundUrl(url);
  const method = (options.method ?? 'GET').toUpperCase();
  if (!METHODS.has(method)) throw new OutboundError('refused', `the method ${JSON.stringify(options.method)} is not allowed`);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error('time limit passed')), options.timeMs);
  try {
    const address = await checkedAddress(target, options, deadline.signal);
    return await requestOnce(target, address, method, options, deadline.signal);
  } catch (error) {
    if (error instanceof InspectRejection) throw error.cause;
    // Once the deadline passes, whatever broke (the aborted socket, a body cut short) is the timeout.
    const failedForAnotherReason = error instanceof OutboundError && error.reason !== 'network';
    if (deadline.signal.aborted && !failedForAnotherReason) {
      throw new OutboundError('timeout', `${method} ${target.origin} timed out after ${options.timeMs} ms`);
    }
    if (error instanceof OutboundError) throw error;
    throw new OutboundError('network', `${target.origin} is unreachable (${messageOf(error)})`);
  } finally {
    clearTimeout(timer);
  }
}

/** Parses a URL to request: http or https only, no credentials. */
function parseOutboundUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OutboundError('refused', `${JSON.stringify(text)} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError('refused', `${url.protocol} URLs are refused; only http and https`);
  }
  if (url.username || url.password) throw new OutboundError('refused', 'URLs with credentials (user:password@) are refused');
  url.hash = '';
  return url;
}

/** Resolves the URL's host and returns the address to connect to, once every address is checked. */
async function checkedAddress(url: URL, options: GuardedRequestOptions, signal: AbortSignal): Promise<ResolvedAddress> {
  const hostname = bareHostname(url);
  const literal = isIP(hostname);
  const answers = literal === 4 || literal === 6 ? [{ address: hostname }] : await resolve(hostname, options.lookup ?? lookupAll, signal);
  if (answers.length === 0) throw new OutboundError('network', `${hostname} could not be resolved`);
  const addresses: ResolvedAddress[] = [];
  for (const { address } of answers) {
    const family = isIP(address);
    // Whatever the lookup answers, only an IP address is connected to (never a name resolved again).
    if (family !== 4 && family !== 6)
      throw new OutboundError('refused', `${hostname} resolves to ${JSON.stringify(address)}, not an IP address`);
    const range = options.allowPrivateNetworks ? undefined : refusedAddressRange(address);
    if (range !== undefined) {
      throw new OutboundError('refused', `${hostname} resolves to a non-public address (${address} is ${range})`);
    }
    addresses.push({ address, family });
  }
  return addresses[0];
}

async function resolve(hostname: string, lookup: NonNullable<GuardedRequestOptions['lookup']>, signal: AbortSignal) {
  try {
    const answers = await untilAborted(lookup(hostname), signal);
    return Array.isArray(answers) ? answers : [];
  } catch (error) {
    if (signal.aborted) throw error;
    throw new OutboundError('network', `${hostname} could not be resolved (${messageOf(error)})`);
  }
}

async function lookupAll(hostname: string): Promise<ResolvedAddress[]> {
  const answers = await dns.lookup(hostname, { all: true, verbatim: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

/** URL.hostname keeps the brackets of an IPv6 literal; sockets want it bare. */
function bareHostname(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** A lookup that answers only the address already checked: the pin against DNS rebinding. */
function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };
}

function outgoingHeaders(options: GuardedRequestOptions, body: Buffer | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: '*/*', 'accept-encoding': 'identity' };
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    const lower = name.toLowerCase();
    if (!CONTROLLED_HEADERS.has(lower) && !lower.startsWith('proxy-')) headers[lower] = value;
  }
  if (body !== undefined) headers['content-length'] = String(body.length);
  return headers;
}

function requestOnce(
  url: URL,
  address: ResolvedAddress,
  method: string,
  options: GuardedRequestOptions,
  signal: AbortSignal,
): Promise<GuardedResponse> {
  const body = options.body === undefined ? undefined : Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body, 'utf8');
  return new Promise<GuardedResponse>((resolveResponse, rejectResponse) => {
    const client = url.protocol === 'https:' ? https : http;
    let request: ClientRequest;
    try {
      request = client.request({
        protocol: url.protocol,
        hostname: bareHostname(url),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method,
        headers: outgoingHeaders(options, body),
        lookup: pinnedLookup(address),
        agent: false, // no pooled socket: every connection goes to the address checked for it
        signal,
      });
    } catch (error) {
      // Node refuses header names and values it cannot send (CR, LF, ...) before connecting.
      rejectResponse(new OutboundError('refused', `the request cannot be sent (${messageOf(error)})`));
      return;
    }
    const fail = (error: unknown): void => {
      request.destroy();
      rejectResponse(error);
    };
    request.on('error', fail);
    request.on('response', (response) => {
      // A HEAD answer, a 204 and a 304 have no body, whatever their Content-Length says.
      const bodiless = method === 'HEAD' || response.statusCode === 204 || response.statusCode === 304;
      const declaredLength = Number(response.headers['content-length']);
      let verdict: 'read' | 'skip' = 'read';
      try {
        verdict = options.inspect?.(response.statusCode ?? 0, flatHeaders(response)) ?? 'read';
      } catch (error) {
        response.destroy();
        fail(new InspectRejection(error));
        return;
      }
      if (verdict === 'skip' || bodiless) {
        response.destroy();
        request.destroy();
        resolveResponse({ status: response.statusCode ?? 0, headers: flatHeaders(response), body: Buffer.alloc(0) });
        return;
      }
      if (Number.isFinite(declaredLength) && declaredLength > options.maxBytes) {
        response.destroy();
        fail(tooLarge(url, options.maxBytes));
        return;
      }
      if (options.receive) {
        options
          .receive(limitedBody(url, response, options.maxBytes))
          .then(() => resolveResponse({ status: response.statusCode ?? 0, headers: flatHeaders(response), body: Buffer.alloc(0) }), fail);
        return;
      }
      readBody(url, response, options.maxBytes).then(
        (bytes) => resolveResponse({ status: response.statusCode ?? 0, headers: flatHeaders(response), body: bytes }),
        fail,
      );
    });
    request.end(body);
  });
}

function readBody(url: URL, response: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise<Buffer>((resolveBody, rejectBody) => {
    const chunks: Buffer[] = [];
    let length = 0;
    response.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > maxBytes) {
        response.destroy();
        rejectBody(tooLarge(url, maxBytes));
        return;
      }
      chunks.push(chunk);
    });
    response.on('end', () => resolveBody(Buffer.concat(chunks, length)));
    response.on('error', rejectBody);
    response.on('close', () => {
      if (!response.complete) rejectBody(new OutboundError('network', `${url.origin} closed the connection before the end of the body`));
    });
  });
}

/** The body as a stream that fails past maxBytes, and with the response when it is cut short or aborted. */
function limitedBody(url: URL, response: IncomingMessage, maxBytes: number): Readable {
  let length = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      length += chunk.length;
      done(length > maxBytes ? tooLarge(url, maxBytes) : null, length > maxBytes ? undefined : chunk);
    },
  });
  pipeline(response, limit, (error) => {
    if (error && !limit.destroyed) limit.destroy(error);
  });
  return limit;
}

function flatHeaders(response: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function tooLarge(url: URL, maxBytes: number): OutboundError {
  return new OutboundError('too-large', `the response of ${url.origin} is larger than ${maxBytes} bytes`);
}

function messageOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolvePromise, rejectPromise) => {
    const onAbort = (): void => rejectPromise(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolvePromise, rejectPromise).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
