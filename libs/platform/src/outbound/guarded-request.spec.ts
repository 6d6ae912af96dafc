import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as tls from 'node:tls';
import { type GuardedRequestOptions, OutboundError, guardedRequest } from './guarded-request';

type Route = (request: IncomingMessage, response: ServerResponse, body: Buffer) => void;

const allowed: GuardedRequestOptions = { allowPrivateNetworks: true, timeMs: 5000, maxBytes: 1024 * 1024 };
const refused: GuardedRequestOptions = { ...allowed, allowPrivateNetworks: false };

/** A lookup that answers fixed addresses. */
const answering =
  (...addresses: string[]): GuardedRequestOptions['lookup'] =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));

async function failureOf(promise: Promise<unknown>): Promise<OutboundError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof OutboundError)) throw new Error(`expected an OutboundError, got ${String(error)}`);
  return error;
}

async function listening(server: Server | tls.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('guardedRequest', () => {
  const routes: Record<string, Route> = {
    '/echo': (request, response, body) =>
      response
        .writeHead(201, { 'content-type': 'application/json', 'x-reply': 'yes' })
        .end(JSON.stringify({ method: request.method, headers: request.headers, body: body.toString() })),
    '/moved': (_request, response) => response.writeHead(302, { location: '/echo' }).end('moved'),
    '/hang': (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('first bytes, then nothing');
    },
    '/big-declared': (_request, response) => response.writeHead(200, { 'content-length': '4096' }).end(Buffer.alloc(4096, 'a')),
    '/big-chunked': (_request, response) => {
      response.on('error', () => undefined);
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const sendMore = (): void => {
        while (sent < 8 * 1024 * 1024 && !response.destroyed) {
          sent += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', sendMore);
        }
        response.end();
      };
      sendMore();
    },
    '/empty': (_request, response) => response.writeHead(204).end(),
  };
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const route = routes[request.url ?? ''];
      if (route) route(request, response, Buffer.concat(chunks));
      else response.writeHead(404).end('not found');
    });
  });
  let origin = '';
  let port = 0;

  beforeAll(async () => {
    port = await listening(server);
    origin = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    server.closeAllConnections(); // the hanging route never answers on its own
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it.each([
    ['127.0.0.1', (p: number) => `http://127.0.0.1:${p}/echo`],
    ['::1', (p: number) => `http://[::1]:${p}/echo`],
    ['10.x', () => 'http://10.1.2.3/echo'],
    ['169.254.x', () => 'http://169.254.169.254/latest/meta-data'],
    ['127.0.0.1 written as 0x7f.1', () => 'http://0x7f.1/'],
    ['::ffff:127.0.0.1', () => 'http://[::ffff:7f00:1]/'],
  ])('refuses %s unless private networks are allowed, without connecting', async (_label, urlFor) => {
    const before = requests.length;
    const failure = await failureOf(guardedRequest(urlFor(port), refused));
    expect(failure.reason).toBe('refused');
    expect(failure.message).toMatch(/resolves to a non-public address/);
    expect(requests.length).toBe(before);
  });

  it('refuses a host name that resolves to a private address', async () => {
    const failure = await failureOf(guardedRequest('http://intranet.example/echo', { ...refused, lookup: answering('10.0.0.7') }));
    expect(failure.reason).toBe('refused');
    expect(failure.message).toBe('intranet.example resolves to a non-public address (10.0.0.7 is private)');
  });

  it('refuses a host name when any one of its addresses is not public', async () => {
    const failure = await failureOf(
      guardedRequest('http://mixed.example/', { ...refused, lookup: answering('93.184.216.34', '169.254.169.254') }),
    );
    expect(failure.reason).toBe('refused');
  });

  it('refuses an answer of the lookup that is not an IP address, even with private networks allowed', async () => {
    const failure = await failureOf(guardedRequest('http://odd.example/', { ...allowed, lookup: answering('localhost') }));
    expect(failure.reason).toBe('refused');
  });

  it.each([
    ['file:///etc/passwd', /only http and https/],
    ['ftp://example.com/', /only http and https/],
    ['http://user:secret@example.com/', /credentials/],
    ['not a url', /not a valid URL/],
  ])('refuses the URL %s', async (url, message) => {
    const failure = await failureOf(guardedRequest(url, allowed));
    expect(failure.reason).toBe('refused');
    expect(failure.message).toMatch(message);
  });

  it('refuses a method it does not send', async () => {
    expect((await failureOf(guardedRequest(`${origin}/echo`, { ...allowed, method: 'CONNECT' }))).reason).toBe('refused');
  });

  it('refuses a header value that would split the request', async () => {
    const failure = await failureOf(guardedRequest(`${origin}/echo`, { ...allowed, headers: { 'x-evil': 'a\r\nx-injected: 1' } }));
    expect(failure.reason).toBe('refused');
  });

  it('POSTs a body to a local server when private networks are allowed, and returns status, headers and body', async () => {
    const response = await guardedRequest(`${origin}/echo`, {
      ...allowed,
      method: 'post',
      headers: { 'Content-Type': 'application/json', 'X-Custom': 'value', Host: 'evil.example', 'Transfer-Encoding': 'chunked' },
      body: '{"hello":"wörld"}',
    });
    expect(response.status).toBe(201);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.headers['x-reply']).toBe('yes');
    const echoed = JSON.parse(response.body.toString()) as { method: string; headers: Record<string, string>; body: string };
    expect(echoed.method).toBe('POST');
    expect(echoed.body).toBe('{"hello":"wörld"}');
    expect(echoed.headers['content-type']).toBe('application/json');
    expect(echoed.headers['x-custom']).toBe('value');
    expect(echoed.headers['content-length']).toBe(String(Buffer.byteLength('{"hello":"wörld"}')));
    expect(echoed.headers['transfer-encoding']).toBeUndefined();
    expect(echoed.headers.host).toBe(`127.0.0.1:${port}`);
  });

  it('sends a Buffer body', async () => {
    const response = await guardedRequest(`${origin}/echo`, { ...allowed, method: 'PUT', body: Buffer.from([0x68, 0x69]) });
    expect(JSON.parse(response.body.toString())).toMatchObject({ method: 'PUT', body: 'hi' });
  });

  it('connects to the address it checked and keeps the host name for the Host header', async () => {
    const response = await guardedRequest(`http://pinned.example:${port}/echo`, { ...allowed, lookup: answering('127.0.0.1') });
    expect((JSON.parse(response.body.toString()) as { headers: Record<string, string> }).headers.host).toBe(`pinned.example:${port}`);
  });

  it('keeps the host name for TLS (SNI) while connecting to the checked address', async () => {
    const names: string[] = [];
    const tlsServer = tls.createServer({
      SNICallback: (servername, callback) => {
        names.push(servername);
        callback(new Error('no certificate in this spec'));
      },
    });
    tlsServer.on('tlsClientError', () => undefined);
    const tlsPort = await listening(tlsServer);
    try {
      const failure = await failureOf(guardedRequest(`https://pinned.example:${tlsPort}/`, { ...allowed, lookup: answering('127.0.0.1') }));
      expect(failure.reason).toBe('network');
      expect(names).toEqual(['pinned.example']);
    } finally {
      await new Promise<void>((resolve) => tlsServer.close(() => resolve()));
    }
  });

  it('returns a redirect as it is, without following it', async () => {
    const before = requests.length;
    const response = await guardedRequest(`${origin}/moved`, allowed);
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe('/echo');
    expect(response.body.toString()).toBe('moved');
    expect(requests.slice(before)).toEqual(['/moved']);
  });

  it('shows the status and headers to inspect before the body, and answers without the body when it skips it', async () => {
    const seen: Array<[number, string | undefined]> = [];
    const response = await guardedRequest(`${origin}/big-chunked`, {
      ...allowed,
      inspect: (status, headers) => (seen.push([status, headers['content-type']]), 'skip'),
    });
    expect(seen).toEqual([[200, 'text/plain']]);
    expect(response).toMatchObject({ status: 200, body: Buffer.alloc(0) });
  });

  it('rejects with exactly what inspect throws, before reading the body', async () => {
    const refusal = new Error('not this content type');
    await expect(
      guardedRequest(`${origin}/big-chunked`, {
        ...allowed,
        inspect: () => {
          throw refusal;
        },
      }),
    ).rejects.toBe(refusal);
  });

  it('returns an error status as it is', async () => {
    const response = await guardedRequest(`${origin}/nowhere`, allowed);
    expect(response.status).toBe(404);
    expect(response.body.toString()).toBe('not found');
  });

  it('returns a bodiless answer', async () => {
    const response = await guardedRequest(`${origin}/empty`, { ...allowed, method: 'DELETE', maxBytes: 0 });
    expect(response.status).toBe(204);
    expect(response.body.length).toBe(0);
  });

  it('gives up on a server that does not finish when the time limit passes', async () => {
    const failure = await failureOf(guardedRequest(`${origin}/hang`, { ...allowed, timeMs: 200 }));
    expect(failure.reason).toBe('timeout');
    expect(failure.message).toMatch(/timed out after 200 ms/);
  });

  it('counts a lookup that does not answer against the time limit', async () => {
    const failure = await failureOf(
      guardedRequest('http://slow-dns.example/', { ...allowed, timeMs: 100, lookup: () => new Promise(() => undefined) }),
    );
    expect(failure.reason).toBe('timeout');
  });

  it('refuses a body whose declared length exceeds maxBytes', async () => {
    const failure = await failureOf(guardedRequest(`${origin}/big-declared`, { ...allowed, maxBytes: 1000 }));
    expect(failure.reason).toBe('too-large');
    expect(failure.message).toMatch(/larger than 1000 bytes/);
  });

  it('stops reading a body as soon as it exceeds maxBytes', async () => {
    const failure = await failureOf(guardedRequest(`${origin}/big-chunked`, { ...allowed, maxBytes: 100_000 }));
    expect(failure.reason).toBe('too-large');
  });

  it('reports a server that cannot be reached', async () => {
    const closed = createServer();
    const closedPort = await listening(closed);
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const failure = await failureOf(guardedRequest(`http://127.0.0.1:${closedPort}/`, allowed));
    expect(failure.reason).toBe('network');
    expect(failure.message).toMatch(/unreachable/);
  });

  it('reports a host name that cannot be resolved', async () => {
    const failure = await failureOf(
      guardedRequest('http://nowhere.example/', {
        ...allowed,
        lookup: async () => {
          throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example'), { code: 'ENOTFOUND' });
        },
      }),
    );
    expect(failure.reason).toBe('network');
    expect(failure.message).toMatch(/could not be resolved/);
  });
});
