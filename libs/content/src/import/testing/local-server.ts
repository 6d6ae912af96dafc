import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { localImportConversions } from '../import-conversions';
import type { ImportConversions } from '../import-plan';

/** Answers one path of the test server. */
export type Route = (request: IncomingMessage, response: ServerResponse) => void;

export interface LocalServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  url(path: string): string;
  /** Paths (with query) requested so far, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 for the specs: the only host import specs send traffic to. */
export async function startLocalServer(routes: Record<string, Route>): Promise<LocalServer> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    requests.push(path);
    const route = routes[path] ?? routes[path.split('?')[0]];
    if (route) route(request, response);
    else response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (path) => `${origin}${path}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections(); // the slow route never answers on its own
        server.close(() => resolve());
      }),
  };
}

export function html(body: string): Route {
  return (_request, response) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
}

export function bytes(contentType: string, body: Uint8Array | string): Route {
  return (_request, response) => response.writeHead(200, { 'content-type': contentType }).end(body);
}

export function redirect(location: string, status = 302): Route {
  return (_request, response) => response.writeHead(status, { location }).end();
}

/** Sends headers, then nothing more: the client's time limit has to end it. */
export function neverFinishing(): Route {
  return (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.write('<p>');
  };
}

/** A body of `size` bytes sent in chunks, without Content-Length, so only counting can stop it. */
export function chunkedBody(contentType: string, size: number): Route {
  return (_request, response) => {
    response.writeHead(200, { 'content-type': contentType });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const sendMore = (): void => {
      while (sent < size) {
        sent += chunk.length;
        if (!response.write(chunk)) {
          response.once('drain', sendMore);
          return;
        }
      }
      response.end();
    };
    response.on('error', () => undefined);
    sendMore();
  };
}

/** Ids like the service's (20 base-62 characters), predictable: id00000000000000001, … */
export function sequentialIds(): () => string {
  let next = 0;
  return () => `id${String(++next).padStart(18, '0')}`;
}

/** A 1×1 PNG. */
export const PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** Import deps with the conversions run in place, ids from the deps' newId. */
export function withConversions<T extends { newId: () => string }>(deps: T): T & { conversions: ImportConversions } {
  return { ...deps, conversions: localImportConversions(deps.newId) };
}
