import { ImportFailure } from './import-failure';
import type { Readable } from 'node:stream';
import { type LookupAddresses, type SafeFetchOptions, safeFetch, safeFetchInto } from './safe-fetch';
import { type LocalServer, bytes, chunkedBody, html, neverFinishing, redirect, startLocalServer } from './testing/local-server';
import { HTML_CONTENT } from './website-import';

const allowed: SafeFetchOptions = { allowPrivateNetworks: true, maxBytes: 1024 * 1024, timeMs: 5000 };
const refused: SafeFetchOptions = { ...allowed, allowPrivateNetworks: false };

/** A lookup that answers fixed addresses; the connection, if any, goes to 127.0.0.1 only. */
const answering =
  (...addresses: string[]): LookupAddresses =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

async function failureOf(promise: Promise<unknown>): Promise<ImportFailure> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ImportFailure)) throw new Error(`expected an ImportFailure, got ${String(error)}`);
  return error;
}

describe('safeFetch', () => {
  let server: LocalServer;

  beforeAll(async () => {
    const chain = Object.fromEntries(Array.from({ length: 8 }, (_, n) => [`/chain/${n}`, redirect(`/chain/${n + 1}`)]));
    server = await startLocalServer({
      '/page': html('<h1>Hello</h1>'),
      '/host': (request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end(request.headers.host),
      '/old': redirect('/page', 301),
      '/loop-a': redirect('/loop-b'),
      '/loop-b': redirect('/loop-a'),
      ...chain,
      '/to-file': redirect('file:///etc/passwd'),
      '/to-credentials': redirect('http://user:secret@127.0.0.1/page'),
      '/image': bytes('image/png', Buffer.from([1, 2, 3])),
      '/big-declared': bytes('text/html', Buffer.alloc(4096, 'a')),
      '/big-content-length': (_request, response) =>
        response.writeHead(200, { 'content-type': 'text/html', 'content-length': '4096' }).end(Buffer.alloc(4096, 'a')),
      '/big-chunked': chunkedBody('text/html', 8 * 1024 * 1024),
      '/slow': neverFinishing(),
      '/gone': (_request, response) => response.writeHead(410).end(),
    });
  });

  afterAll(() => server.close());

  it('returns the body and its content type', async () => {
    const fetched = await safeFetch(server.url('/page'), allowed);
    expect(fetched.bytes.toString()).toBe('<h1>Hello</h1>');
    expect(fetched.contentType).toBe('text/html; charset=utf-8');
    expect(fetched.mediaType).toBe('text/html');
  });

  it('refuses URLs other than http and https (400)', async () => {
    const failure = await failureOf(safeFetch('file:///etc/passwd', allowed));
    expect(failure.status).toBe(400);
    expect(failure.message).toMatch(/only http and https/);
  });

  it('refuses URLs with credentials (400)', async () => {
    const failure = await failureOf(safeFetch(server.url('/page').replace('http://', 'http://user:secret@'), allowed));
    expect(failure.status).toBe(400);
    expect(failure.message).toMatch(/credentials/);
  });

  it('refuses what is not a URL (400)', async () => {
    expect((await failureOf(safeFetch('not a url', allowed))).status).toBe(400);
  });

  it('refuses a loopback address unless private networks are allowed (400), without connecting', async () => {
    const requestsBefore = server.requests.length;
    const failure = await failureOf(safeFetch(server.url('/page'), refused));
    expect(failure.status).toBe(400);
    expect(failure.message).toMatch(/127\.0\.0\.1 resolves to a private address; /);
    expect(server.requests.length).toBe(requestsBefore);
  });

  it.each(['http://[::1]/', 'http://[::ffff:7f00:1]/', 'http://0x7f.1/', 'http://2130706433/', 'http://169.254.169.254/latest/meta-data'])(
    'refuses the private IP literal %s in any notation (400)',
    async (url) => {
      const failure = await failureOf(safeFetch(url, refused));
      expect(failure.status).toBe(400);
      expect(failure.message).toMatch(/resolves to a private address/);
    },
  );

  it('refuses a host name that resolves to a private address (400)', async () => {
    const failure = await failureOf(safeFetch('http://intranet.example/page', { ...refused, lookup: answering('10.0.0.1') }));
    expect(failure.status).toBe(400);
    expect(failure.message).toMatch(/^intranet\.example resolves to a private address; .*10\.0\.0\.1 is private/);
  });

  it('refuses a host name that resolves to an IPv4-mapped loopback address (400)', async () => {
    const failure = await failureOf(safeFetch('http://mapped.example/page', { ...refused, lookup: answering('::ffff:127.0.0.1') }));
    expect(failure.status).toBe(400);
    expect(failure.message).toMatch(/resolves to a private address/);
  });

  it('refuses a host name when any one of its addresses is private (400)', async () => {
    const failure = await failureOf(
      safeFetch('http://mixed.example/page', { ...refused, lookup: answering('93.184.216.34', '192.168.0.10') }),
    );
    expect(failure.status).toBe(400);
  });

  it('connects to the address it checked, whatever DNS would answer next', async () => {
    const fetched = await safeFetch(`http://pinned.example:${new URL(server.origin).port}/host`, {
      ...allowed,
      lookup: answering('127.0.0.1'),
    });
    expect(fetched.bytes.toString()).toBe(`pinned.example:${new URL(server.origin).port}`);
  });

  it('follows redirects and reports where the body came from', async () => {
    const fetched = await safeFetch(server.url('/old'), allowed);
    expect(fetched.url.href).toBe(server.url('/page'));
    expect(fetched.bytes.toString()).toBe('<h1>Hello</h1>');
  });

  it('checks every redirect like the first URL (400)', async () => {
    expect((await failureOf(safeFetch(server.url('/to-file'), allowed))).status).toBe(400);
    expect((await failureOf(safeFetch(server.url('/to-credentials'), allowed))).status).toBe(400);
  });

  it('refuses a redirect loop (422)', async () => {
    const failure = await failureOf(safeFetch(server.url('/loop-a'), allowed));
    expect(failure.status).toBe(422);
    expect(failure.message).toMatch(/redirects in a loop/);
  });

  it('refuses more than 5 redirects (422)', async () => {
    const failure = await failureOf(safeFetch(server.url('/chain/0'), allowed));
    expect(failure.status).toBe(422);
    expect(failure.message).toMatch(/redirects more than 5 times/);
  });

  it('follows 5 redirects', async () => {
    const failure = await failureOf(safeFetch(server.url('/chain/3'), allowed));
    // /chain/3 → … → /chain/8, which is not found: five redirects followed, then the 404.
    expect(failure.message).toMatch(/\/chain\/8 answered HTTP 404/);
  });

  it('refuses an HTTP error status (422)', async () => {
    const failure = await failureOf(safeFetch(server.url('/gone'), allowed));
    expect(failure.status).toBe(422);
    expect(failure.message).toMatch(/answered HTTP 410/);
  });

  it('refuses a content type it was not asked for (422)', async () => {
    const failure = await failureOf(safeFetch(server.url('/image'), { ...allowed, accept: HTML_CONTENT }));
    expect(failure.status).toBe(422);
    expect(failure.message).toMatch(/is image\/png, not an HTML page/);
  });

  it('refuses a body whose declared length exceeds the byte limit (413)', async () => {
    const failure = await failureOf(safeFetch(server.url('/big-declared'), { ...allowed, maxBytes: 1000 }));
    expect(failure.status).toBe(413);
    expect(failure.message).toMatch(/is larger than 1000 bytes/);
  });

  it('stops reading a body as soon as it exceeds the byte limit (413)', async () => {
    const failure = await failureOf(safeFetch(server.url('/big-chunked'), { ...allowed, maxBytes: 100_000 }));
    expect(failure.status).toBe(413);
  });

  it('gives up when the time limit passes (408)', async () => {
    const failure = await failureOf(safeFetch(server.url('/slow'), { ...allowed, timeMs: 200 }));
    expect(failure.status).toBe(408);
    expect(failure.message).toMatch(/timed out after 200 ms/);
  });

  it('reports an unreachable server (422)', async () => {
    const closed = await startLocalServer({});
    await closed.close();
    const failure = await failureOf(safeFetch(closed.url('/page'), allowed));
    expect(failure.status).toBe(422);
    expect(failure.message).toMatch(/unreachable/);
  });

  describe('safeFetchInto (the body streamed to a receiver)', () => {
    /** Reads the stream chunk by chunk, as a store does, counting what it got. */
    const counting = (got: { bytes: number; chunks: number }) => async (body: Readable) => {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        got.bytes += chunk.length;
        got.chunks++;
      }
      return got.bytes;
    };

    it('hands the receiver the body of the last redirect as a stream, and answers what it returned', async () => {
      const got = { bytes: 0, chunks: 0 };
      const fetched = await safeFetchInto(server.url('/old'), allowed, counting(got));
      expect(fetched).toMatchObject({
        url: new URL(server.url('/page')),
        mediaType: 'text/html',
        received: Buffer.byteLength('<h1>Hello</h1>'),
      });
    });

    it('fails the stream and the fetch with 413 as soon as the body exceeds the byte limit', async () => {
      const got = { bytes: 0, chunks: 0 };
      const failure = await failureOf(safeFetchInto(server.url('/big-chunked'), { ...allowed, maxBytes: 100_000 }, counting(got)));
      expect(failure.status).toBe(413);
      expect(got.bytes).toBeLessThanOrEqual(100_000);
    });

    it('refuses a body whose declared length exceeds the byte limit (413) without calling the receiver', async () => {
      const receive = jest.fn(async () => 0);
      expect((await failureOf(safeFetchInto(server.url('/big-content-length'), { ...allowed, maxBytes: 1000 }, receive))).status).toBe(413);
      expect(receive).not.toHaveBeenCalled();
    });

    it('gives up with 408 on a body that stops coming', async () => {
      const failure = await failureOf(safeFetchInto(server.url('/slow'), { ...allowed, timeMs: 300 }, counting({ bytes: 0, chunks: 0 })));
      expect(failure.status).toBe(408);
    });

    it("lets the receiver's own failure through as it is", async () => {
      const own = new Error('the disk is full');
      await expect(safeFetchInto(server.url('/page'), allowed, async () => Promise.reject(own))).rejects.toBe(own);
    });
  });
});
