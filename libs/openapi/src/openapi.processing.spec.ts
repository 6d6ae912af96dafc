import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchDocument } from './openapi.fetch';
import { processSource } from './openapi.processing';

const SPEC = '{"openapi":"3.0.3","info":{"title":"T","version":"1"},"paths":{}}';
const limits = { allowPrivateNetworks: true, timeMs: 300, maxBytes: 10_000, maxRedirects: 2, maxExternalDocuments: 2 };
const failureOf = (promise: Promise<unknown>) => promise.then(() => null, (error: { code: string }) => error.code);

/** An in-memory blob store. */
function blobs() {
  const stored = new Map<string, Buffer>();
  return {
    stored,
    async put(content: Buffer | Uint8Array | NodeJS.ReadableStream) {
      const bytes = Buffer.from(content as Buffer);
      const hash = createHash('sha256').update(bytes).digest('hex');
      stored.set(hash, bytes);
      return { hash, size: bytes.length };
    },
    async read(hash: string) {
      return stored.get(hash)!;
    },
  };
}

describe('fetching and processing a source', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/spec.json') response.writeHead(200, { 'content-type': 'application/json' }).end(SPEC);
      else if (request.url === '/moved') response.writeHead(301, { location: '/spec.json' }).end();
      else if (request.url?.startsWith('/hop')) response.writeHead(302, { location: `/hop${Number(request.url.slice(4)) + 1}` }).end();
      else if (request.url === '/slow') setTimeout(() => response.end(SPEC), 2000).unref();
      else response.writeHead(404).end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise((done) => server.close(done));
  });

  it('a redirect is followed, and the final URL is where the document came from', async () => {
    expect(await fetchDocument(`${base}/moved`, limits)).toMatchObject({ url: `${base}/spec.json`, contentType: 'application/json' });
  });

  it('more redirects than the limit is FETCH_TOO_MANY_REDIRECTS', async () => {
    expect(await failureOf(fetchDocument(`${base}/hop0`, limits))).toBe('FETCH_TOO_MANY_REDIRECTS');
  });

  it('a loopback address is refused unless private networks are allowed', async () => {
    expect(await failureOf(fetchDocument(`${base}/spec.json`, { ...limits, allowPrivateNetworks: false }))).toBe('FETCH_REFUSED');
  });

  it('a server slower than the time limit is FETCH_TIMEOUT', async () => {
    expect(await failureOf(fetchDocument(`${base}/slow`, limits))).toBe('FETCH_TIMEOUT');
  });

  it('a 404 is FETCH_HTTP_ERROR; a closed port is FETCH_UNREACHABLE; a file URL is refused', async () => {
    expect(await failureOf(fetchDocument(`${base}/missing`, limits))).toBe('FETCH_HTTP_ERROR');
    expect(await failureOf(fetchDocument('http://127.0.0.1:1/spec.json', limits))).toBe('FETCH_UNREACHABLE');
    expect(await failureOf(fetchDocument('file:///etc/passwd', limits))).toBe('FETCH_REFUSED');
  });

  it('a URL source is fetched, parsed, and its raw bytes and parsed document stored as blobs', async () => {
    const store = blobs();
    const outcome = await processSource({ kind: 'url', url: `${base}/spec.json` }, { blobs: store, limits, newId: () => 'v1' });
    expect(outcome).toMatchObject({ ok: true, versionId: 'v1', rawSize: SPEC.length, contentType: 'application/json', sourceURL: `${base}/spec.json` });
    if (!outcome.ok) throw new Error('not processed');
    expect(store.stored.get(outcome.rawHash)!.toString()).toBe(SPEC);
    expect(JSON.parse(store.stored.get(outcome.documentHash)!.toString())).toMatchObject({ openapi: '3.0.3' });
  });

  it('the same text twice gives the same document hash (one version)', async () => {
    const store = blobs();
    const text = await store.put(Buffer.from(SPEC));
    const first = await processSource({ kind: 'text', ...text }, { blobs: store, limits, newId: () => 'v1' });
    const second = await processSource({ kind: 'text', ...text }, { blobs: store, limits, newId: () => 'v2' });
    expect(first.ok && second.ok && first.documentHash === second.documentHash).toBe(true);
  });

  it('an invalid text source is a failed outcome, not an exception', async () => {
    const store = blobs();
    const text = await store.put(Buffer.from('openapi: 3.0.3\npaths: {}\n'));
    expect(await processSource({ kind: 'text', ...text }, { blobs: store, limits, newId: () => 'v1' })).toMatchObject({ ok: false, errorCode: 'INVALID_SPEC' });
  });
});
