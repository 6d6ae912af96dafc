import { OutboundError, guardedRequest } from '#platform/outbound/guarded-request';
import type { OpenapiErrorCode } from './openapi.events';

/** Limits of fetching a spec and the documents its `$ref`s name (OPENAPI_FETCH_* settings). */
export interface FetchLimits {
  allowPrivateNetworks: boolean;
  /** For one document: resolving, connecting, every redirect and the body. */
  timeMs: number;
  /** Largest document, in bytes. */
  maxBytes: number;
  maxRedirects: number;
  /** Resolves a host name to all its addresses (tests answer without DNS). */
  lookup?: (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;
}

/** Why processing failed: a code for `lastProcessErrorCode` and a message naming the problem. */
export class ProcessingFailure extends Error {
  override readonly name = 'ProcessingFailure';

  constructor(
    readonly code: OpenapiErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface FetchedDocument {
  /** Where the body came from, after redirects. */
  url: string;
  contentType: string;
  bytes: Buffer;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GETs a document through the platform's guarded request (public addresses only unless allowed, the
 * connection pinned to the checked address), following redirects up to the limit, each one checked
 * the same way, within one time limit for the whole fetch. Every failure is a ProcessingFailure.
 */
export async function fetchDocument(url: string, limits: FetchLimits): Promise<FetchedDocument> {
  const deadline = performance.now() + limits.timeMs;
  const timedOut = () => new ProcessingFailure('FETCH_TIMEOUT', `fetching ${url} timed out after ${limits.timeMs} ms`);
  let current = parse(url);
  for (let redirects = 0; ; redirects++) {
    const timeLeft = Math.ceil(deadline - performance.now());
    if (timeLeft <= 0) throw timedOut();
    let location: string | undefined;
    let response;
    try {
      response = await guardedRequest(current.href, {
        headers: { accept: 'application/json, application/yaml, text/yaml, */*;q=0.5' },
        allowPrivateNetworks: limits.allowPrivateNetworks,
        timeMs: timeLeft,
        maxBytes: limits.maxBytes,
        lookup: limits.lookup,
        inspect: (status, headers) => {
          if (REDIRECTS.has(status) && headers.location) {
            location = headers.location;
            return 'skip';
          }
          if (status < 200 || status > 299) throw new ProcessingFailure('FETCH_HTTP_ERROR', `${current.href} answered HTTP ${status}`);
          return 'read';
        },
      });
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      switch (error.reason) {
        case 'timeout':
          throw timedOut();
        case 'too-large':
          throw new ProcessingFailure('DOCUMENT_TOO_LARGE', `${current.href} is larger than ${limits.maxBytes} bytes`);
        case 'refused':
          throw new ProcessingFailure('FETCH_REFUSED', error.message);
        default:
          throw new ProcessingFailure('FETCH_UNREACHABLE', error.message);
      }
    }
    if (location === undefined) return { url: current.href, contentType: response.headers['content-type'] ?? '', bytes: response.body };
    if (redirects >= limits.maxRedirects)
      throw new ProcessingFailure('FETCH_TOO_MANY_REDIRECTS', `${url} redirects more than ${limits.maxRedirects} times`);
    current = parse(location, current);
  }
}

function parse(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw new ProcessingFailure('FETCH_REFUSED', `${JSON.stringify(text.slice(0, 200))} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ProcessingFailure('FETCH_REFUSED', `${url.protocol} URLs are refused; only http and https`);
  url.hash = '';
  return url;
}
