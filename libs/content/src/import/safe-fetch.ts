import { promises as dns } from 'node:dns';
import type { IncomingMessage } from 'node:http';
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { refusedAddressRange } from '../../../platform/src/outbound/address-policy';
import { mediaTypeOf } from './content-types';
import { ImportFailure } from './import-failure';

export { ImportFailure } from './import-failure';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses (tests answer without DNS). */
export type LookupAddresses = (hostname: string) => Promise<ResolvedAddress[]>;

/** Which content types a fetch accepts; anything else fails with 422 before the body is read. */
export interface ContentTypeRule {
  /** In words, for the failure message: 'an HTML page'. */
  label: string;
  /** The Accept header sent. */
  accept: string;
  matches(mediaType: string, url: URL): boolean;
}

export interface SafeFetchOptions {
  /** Allows loopback, private and other non-public addresses (IMPORT_ALLOW_PRIVATE_NETWORKS). */
  allowPrivateNetworks: boolean;
  /** The response body is aborted as soon as it grows past this. */
  maxBytes: number;
  /** For the whole fetch: resolving, connecting, every redirect and the body. */
  timeMs: number;
  lookup?: LookupAddresses;
  accept?: ContentTypeRule;
  /** 5 unless told. */
  maxRedirects?: number;
}

export interface FetchedResource {
  /** Where the body came from, after redirects. */
  url: URL;
  /** The Content-Type header as sent ('' when absent). */
  contentType: string;
  /** Its media type, lower case, without parameters. */
  mediaType: string;
  bytes: Buffer;
}

const DEFAULT_MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'docs-platform-import/1.0';

/**
 * GETs a URL from the public internet only, guarding the service against server-side request
 * forgery: the host is resolved first and every address it resolves to is checked, the connection
 * goes to the checked address (so a second DNS answer cannot swap it), and each redirect is checked
 * the same way before it is followed.
 */
export async function safeFetch(input: string | URL, options: SafeFetchOptions): Promise<FetchedResource> {
  const start = parseFetchUrl(String(input));
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.timeMs);
  try {
    return await followRedirects(start, options, deadline.signal);
  } catch (error) {
    // Once the deadline passes, whatever broke (the aborted socket, a body cut short) is the timeout.
    const refusedForAnotherReason = error instanceof ImportFailure && error.status !== 422;
    if (deadline.signal.aborted && !refusedForAnotherReason) {
      throw new ImportFailure(408, `fetching ${start.href} timed out after ${options.timeMs} ms`);
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Parses a URL to fetch: http or https only, no credentials. */
export function parseFetchUrl(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw new ImportFailure(400, `${JSON.stringify(text)} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ImportFailure(400, `${url.protocol} URLs cannot be imported; only http and https`);
  }
  if (url.username || url.password) {
    throw new ImportFailure(400, 'URLs with credentials (user:password@) are refused');
  }
  url.hash = '';
  return url;
}

async function followRedirects(start: URL, options: SafeFetchOptions, signal: AbortSignal): Promise<FetchedResource> {
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const visited = new Set<string>();
  let url = start;
  for (let redirects = 0; ; redirects++) {
    visited.add(url.href);
    const address = await checkedAddress(url, options, signal);
    const hop = await requestOnce(url, address, options, signal);
    if (hop.kind === 'resource') return hop.resource;
    if (redirects >= maxRedirects) {
      throw new ImportFailure(422, `${start.href} redirects more than ${maxRedirects} times`);
    }
    const next = parseFetchUrl(hop.location, url);
    if (visited.has(next.href)) {
      throw new ImportFailure(422, `${start.href} redirects in a loop (back to ${next.href})`);
    }
    url = next;
  }
}

/** Resolves the URL's host and returns the address to connect to, once every address is checked. */
async function checkedAddress(url: URL, options: SafeFetchOptions, signal: AbortSignal): Promise<ResolvedAddress> {
  const hostname = bareHostname(url);
  const family = isIP(hostname);
  const addresses: ResolvedAddress[] =
    family === 4 || family === 6 ? [{ address: hostname, family }] : await resolve(hostname, options.lookup ?? lookupAll, signal);
  if (addresses.length === 0) throw new ImportFailure(422, `${hostname} could not be resolved`);
  if (!options.allowPrivateNetworks) {
    for (const { address } of addresses) {
      const range = refusedAddressRange(address);
      if (range !== undefined) {
        throw new ImportFailure(
          400,
          `${hostname} resolves to a private address; imports only fetch from public addresses (${address} is ${range})`,
        );
      }
    }
  }
  return addresses[0];
}

async function resolve(hostname: string, lookup: LookupAddresses, signal: AbortSignal): Promise<ResolvedAddress[]> {
  try {
    return await untilAborted(lookup(hostname), signal);
  } catch (error) {
    if (signal.aborted) throw error;
    throw new ImportFailure(422, `${hostname} could not be resolved (${messageOf(error)})`);
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

type Hop = { kind: 'redirect'; location: string } | { kind: 'resource'; resource: FetchedResource };

function requestOnce(url: URL, address: ResolvedAddress, options: SafeFetchOptions, signal: AbortSignal): Promise<Hop> {
  return new Promise<Hop>((resolveHop, rejectHop) => {
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request({
      protocol: url.protocol,
      hostname: bareHostname(url),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: {
        'user-agent': USER_AGENT,
        accept: options.accept?.accept ?? '*/*',
        'accept-encoding': 'identity',
      },
      lookup: pinnedLookup(address),
      agent: false, // no pooled socket: every connection goes to the address checked for it
      signal,
    });
    const fail = (error: unknown): void => {
      request.destroy();
      rejectHop(error instanceof ImportFailure || signal.aborted ? error : unreachable(url, error));
    };
    request.on('error', fail);
    request.on('response', (response) => {
      try {
        const hop = redirectOrCheck(url, response, options);
        if (hop) {
          response.resume();
          request.destroy();
          resolveHop(hop);
          return;
        }
      } catch (error) {
        fail(error);
        return;
      }
      readBody(url, response, options.maxBytes).then(
        (bytes) => {
          const contentType = String(response.headers['content-type'] ?? '');
          resolveHop({ kind: 'resource', resource: { url, contentType, mediaType: mediaTypeOf(contentType), bytes } });
        },
        fail,
      );
    });
    request.end();
  });
}

/** A redirect to follow, or undefined when the response's body is to be read; throws when it is refused. */
function redirectOrCheck(url: URL, response: IncomingMessage, options: SafeFetchOptions): Hop | undefined {
  const status = response.statusCode ?? 0;
  const location = response.headers.location;
  if (REDIRECT_STATUSES.has(status) && location) return { kind: 'redirect', location };
  if (status < 200 || status > 299) throw new ImportFailure(422, `${url.href} answered HTTP ${status}`);
  const contentType = String(response.headers['content-type'] ?? '');
  if (options.accept && !options.accept.matches(mediaTypeOf(contentType), url)) {
    throw new ImportFailure(422, `${url.href} is ${contentType || 'of no stated content type'}, not ${options.accept.label}`);
  }
  const declaredLength = Number(response.headers['content-length']);
  if (Number.isFinite(declaredLength) && declaredLength > options.maxBytes) throw tooLarge(url, options.maxBytes);
  return undefined;
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
      if (!response.complete) rejectBody(new ImportFailure(422, `${url.href} closed the connection before the end of the body`));
    });
  });
}

function tooLarge(url: URL, maxBytes: number): ImportFailure {
  return new ImportFailure(413, `${url.href} is larger than ${maxBytes} bytes`);
}

function unreachable(url: URL, error: unknown): ImportFailure {
  return new ImportFailure(422, `${url.origin} is unreachable (${messageOf(error)})`);
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
