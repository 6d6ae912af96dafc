import { guardedRequest } from '#platform/outbound/guarded-request';
import type { SandboxFetch } from './script-sandbox';

/**
 * Where a script's `fetch` may go, as plain data: built by the service from the integration and the
 * configuration, handed to the thread that runs the script, which builds the fetch from it.
 */
export interface ScriptFetchPolicy {
  /** The integration's content security policy: its `connect-src` (else `default-src`) lists the origins allowed. */
  contentSecurityPolicy: string | null;
  /** INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: loopback, private and link-local addresses too. */
  allowPrivateNetworks: boolean;
}

/** How long one request of a script may take, and how much of an answer it may read. */
export const SCRIPT_FETCH_TIME_MS = 5000;
export const SCRIPT_FETCH_MAX_BYTES = 1024 * 1024;

/**
 * A `fetch` for scripts: public addresses only (unless configured), and only origins the
 * integration's `connect-src` allows. Host names are resolved by the operating system's resolver
 * (guardedRequest's lookup), the same in a worker thread as on the main thread.
 */
export function scriptFetch(contentSecurityPolicy: string | null, allowPrivateNetworks: boolean): SandboxFetch {
  const sources = connectSources(contentSecurityPolicy);
  return async (url, init) => {
    if (sources !== null && !sources.some((source) => allowedBy(source, url)))
      throw new Error(`fetch of ${originOf(url)} refused by the integration's content security policy`);
    const response = await guardedRequest(url, {
      method: init.method,
      headers: init.headers,
      ...(init.body !== undefined ? { body: init.body } : {}),
      allowPrivateNetworks,
      timeMs: SCRIPT_FETCH_TIME_MS,
      maxBytes: SCRIPT_FETCH_MAX_BYTES,
    });
    return { status: response.status, headers: response.headers, body: response.body.toString('utf8') };
  };
}

/** The `connect-src` sources of a policy; null when the policy does not restrict fetches. */
export function connectSources(policy: string | null): string[] | null {
  if (!policy) return null;
  const directives = policy.split(';').map((part) => part.trim().split(/\s+/));
  const directive = directives.find(([name]) => name === 'connect-src') ?? directives.find(([name]) => name === 'default-src');
  return directive ? directive.slice(1) : null;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'an invalid URL';
  }
}

function allowedBy(source: string, url: string): boolean {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return false;
  }
  if (source === '*') return true;
  if (source === "'none'") return false;
  if (/^[a-z]+:$/.test(source)) return target.protocol === source;
  const match = /^(?:([a-z]+):\/\/)?(\*\.)?([^/:]+)(?::(\d+))?/.exec(source);
  if (!match) return false;
  const [, scheme, wildcard, host, port] = match;
  if (scheme && `${scheme}:` !== target.protocol) return false;
  if (port && port !== (target.port || (target.protocol === 'https:' ? '443' : '80'))) return false;
  return wildcard ? target.hostname.endsWith(`.${host}`) : target.hostname === host;
}
