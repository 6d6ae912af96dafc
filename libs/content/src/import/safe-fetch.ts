import type { Readable } from 'node:stream';
import { type GuardedResponse, OutboundError, guardedRequest } from '#platform/outbound/guarded-request';
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
/** guardedRequest's words for a refused address, and the ones imports have always answered with. */
const NON_PUBLIC = ' resolves to a non-public address (';
const PRIVATE = ' resolves to a private address; imports only fetch from public addresses (';

/**
 * GETs a URL from the public internet only, guarding the service against server-side request
 * forgery: every hop goes through guardedRequest (the host resolved first, every address it
 * resolves to checked, the connection pinned to the checked address), and each redirect is checked
 * the same way before it is followed.
 */
export async function safeFetch(input: string | URL, options: SafeFetchOptions): Promise<FetchedResource> {
  const { response, ...fetched } = await followRedirects(input, options);
  return { ...fetched, bytes: response.body };
}

/**
 * safeFetch, with the body streamed to `receive` as it arrives instead of collected in memory
 * (into the blob store, say); the body fails with 413 past maxBytes, which rejects the fetch.
 */
export async function safeFetchInto<T>(
  input: string | URL,
  options: SafeFetchOptions,
  receive: (body: Readable, resource: Omit<FetchedResource, 'bytes'>) => Promise<T>,
): Promise<Omit<FetchedResource, 'bytes'> & { received: T }> {
  let received: { value: T } | undefined;
  // The receiver's own failure (the store's) is its own; one of the body (cut short, too large, too slow) is the fetch's.
  let ownFailure: { error: unknown } | undefined;
  try {
    const { response: _response, ...fetched } = await followRedirects(input, options, async (body, resource) => {
      try {
        received = { value: await receive(body, resource) };
      } catch (error) {
        if (error !== body.errored) ownFailure = { error };
        throw error;
      }
    });
    return { ...fetched, received: received!.value };
  } catch (error) {
    if (ownFailure) throw ownFailure.error;
    throw error;
  }
}

type Receiver = (body: Readable, resource: Omit<FetchedResource, 'bytes'>) => Promise<void>;

async function followRedirects(
  input: string | URL,
  options: SafeFetchOptions,
  receive?: Receiver,
): Promise<Omit<FetchedResource, 'bytes'> & { response: GuardedResponse }> {
  const start = parseFetchUrl(String(input));
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const deadline = performance.now() + options.timeMs;
  const timedOut = (): ImportFailure => new ImportFailure(408, `fetching ${start.href} timed out after ${options.timeMs} ms`);
  const visited = new Set<string>();
  let url = start;
  for (let redirects = 0; ; redirects++) {
    visited.add(url.href);
    const timeLeft = Math.ceil(deadline - performance.now());
    if (timeLeft <= 0) throw timedOut();
    const hop = url;
    const response = await requestOnce(
      url,
      options,
      timeLeft,
      timedOut,
      receive && ((body, contentType) => receive(body, { url: hop, contentType, mediaType: mediaTypeOf(contentType) })),
    );
    const location = redirectLocation(response.status, response.headers);
    if (location === undefined) {
      const contentType = response.headers['content-type'] ?? '';
      return { url, contentType, mediaType: mediaTypeOf(contentType), response };
    }
    if (redirects >= maxRedirects) {
      throw new ImportFailure(422, `${start.href} redirects more than ${maxRedirects} times`);
    }
    const next = parseFetchUrl(location, url);
    if (visited.has(next.href)) {
      throw new ImportFailure(422, `${start.href} redirects in a loop (back to ${next.href})`);
    }
    url = next;
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

/** One hop: a redirect (its body not read) or a body to keep; a refused status or content type fails before the body. */
async function requestOnce(
  url: URL,
  options: SafeFetchOptions,
  timeMs: number,
  timedOut: () => ImportFailure,
  receive?: (body: Readable, contentType: string) => Promise<void>,
): Promise<GuardedResponse> {
  let contentType = '';
  try {
    return await guardedRequest(url.href, {
      headers: { 'user-agent': USER_AGENT, accept: options.accept?.accept ?? '*/*' },
      allowPrivateNetworks: options.allowPrivateNetworks,
      timeMs,
      maxBytes: options.maxBytes,
      lookup: options.lookup,
      inspect: (status, headers) => {
        if (redirectLocation(status, headers) !== undefined) return 'skip';
        if (status < 200 || status > 299) throw new ImportFailure(422, `${url.href} answered HTTP ${status}`);
        contentType = headers['content-type'] ?? '';
        if (options.accept && !options.accept.matches(mediaTypeOf(contentType), url)) {
          throw new ImportFailure(422, `${url.href} is ${contentType || 'of no stated content type'}, not ${options.accept.label}`);
        }
        return 'read';
      },
      ...(receive ? { receive: (body: Readable) => receive(body, contentType) } : {}),
    });
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    switch (error.reason) {
      case 'refused':
        throw new ImportFailure(400, error.message.replace(NON_PUBLIC, PRIVATE));
      case 'timeout':
        throw timedOut();
      case 'too-large':
        throw new ImportFailure(413, `${url.href} is larger than ${options.maxBytes} bytes`);
      case 'network':
        throw new ImportFailure(422, error.message);
    }
  }
}

/** Where a redirect points, or undefined when the response is not a redirect to follow. */
function redirectLocation(status: number, headers: Record<string, string>): string | undefined {
  return REDIRECT_STATUSES.has(status) && headers.location ? headers.location : undefined;
}
