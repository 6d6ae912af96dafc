import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type DeliveryOptions,
  EVENT_ID_HEADER,
  SIGNATURE_HEADER,
  backoffDelay,
  deliverToTunnel,
  signature,
  verifySignature,
} from './tunnel-delivery';

const SECRET = 'whsec_test_secret';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  verified: boolean;
}

/** A receiver on 127.0.0.1 answering each request with the next behaviour of its script (the last one repeats). */
type Behaviour = (response: ServerResponse) => void;
const answer =
  (status: number, headers: Record<string, string> = {}): Behaviour =>
  (response) =>
    response.writeHead(status, headers).end();
const hang: Behaviour = () => undefined;

async function startReceiver(script: Behaviour[]) {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = String(request.headers[SIGNATURE_HEADER] ?? '');
      received.push({ headers: request.headers, body, verified: verifySignature(SECRET, header, body, new Date()) });
      script[Math.min(received.length, script.length) - 1](response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/tunnel`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An event as integrations receive it: the event itself, not an envelope around it. */
const event = {
  eventId: 'evt_01HZX',
  type: 'space_content_updated',
  installationId: 'inst_1',
  spaceId: 'spc_1',
  revisionId: 'rev_1',
  updatedBy: [],
};

function optionsWith(overrides: Partial<DeliveryOptions> = {}): DeliveryOptions & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    secret: SECRET,
    maxAttempts: 6,
    baseDelayMs: 200,
    maxDelayMs: 30_000,
    timeoutMs: 5_000,
    allowPrivateNetworks: true,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    sleeps,
    ...overrides,
  };
}

describe('deliverToTunnel', () => {
  const receivers: Array<{ close(): Promise<void> }> = [];
  const receiver = async (script: Behaviour[]) => {
    const started = await startReceiver(script);
    receivers.push(started);
    return started;
  };
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((started) => started.close()));
  });

  it('POSTs the event as JSON, signed, with its id, and the receiver verifies the signature', async () => {
    const tunnel = await receiver([answer(200)]);
    const outcome = await deliverToTunnel(tunnel.url, event, optionsWith());
    expect(outcome.delivered).toBe(true);
    expect(outcome.attempts).toHaveLength(1);
    expect(outcome.attempts[0]).toMatchObject({ status: 200 });
    expect(outcome.attempts[0].error).toBeUndefined();
    expect(new Date(outcome.attempts[0].at).toISOString()).toBe(outcome.attempts[0].at);
    expect(outcome.attempts[0].durationMs).toBeGreaterThanOrEqual(0);

    const [delivery] = tunnel.received;
    expect(delivery.verified).toBe(true);
    expect(delivery.body).toBe(JSON.stringify(event));
    expect(JSON.parse(delivery.body)).toEqual(event);
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.headers[EVENT_ID_HEADER]).toBe('evt_01HZX');
    expect(delivery.headers[SIGNATURE_HEADER]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  });

  it('signs with the injected clock', async () => {
    const tunnel = await receiver([answer(204)]);
    const at = new Date('2030-05-06T07:08:09.000Z');
    const outcome = await deliverToTunnel(tunnel.url, event, optionsWith({ now: () => at }));
    expect(outcome).toEqual({ delivered: true, attempts: [expect.objectContaining({ at: at.toISOString(), status: 204 })] });
    const header = String(tunnel.received[0].headers[SIGNATURE_HEADER]);
    const seconds = at.getTime() / 1000;
    expect(header).toBe(`t=${seconds},v1=${signature(SECRET, seconds, JSON.stringify(event))}`);
    expect(verifySignature(SECRET, header, tunnel.received[0].body, at)).toBe(true);
  });

  it('retries a receiver answering 500 twice, then 200: 3 attempts with the same event id', async () => {
    const tunnel = await receiver([answer(500), answer(500), answer(200)]);
    const options = optionsWith();
    const outcome = await deliverToTunnel(tunnel.url, event, options);
    expect(outcome.delivered).toBe(true);
    expect(outcome.attempts.map((attempt) => attempt.status)).toEqual([500, 500, 200]);
    expect(tunnel.received.map((delivery) => delivery.headers[EVENT_ID_HEADER])).toEqual(['evt_01HZX', 'evt_01HZX', 'evt_01HZX']);
    expect(tunnel.received.every((delivery) => delivery.verified)).toBe(true);
    // Full jitter with random() = 0.5: half of 200, then half of 400.
    expect(options.sleeps).toEqual([100, 200]);
  });

  it('times out on a hanging receiver and retries', async () => {
    const tunnel = await receiver([hang, answer(200)]);
    const outcome = await deliverToTunnel(tunnel.url, event, optionsWith({ timeoutMs: 200 }));
    expect(outcome.delivered).toBe(true);
    expect(outcome.attempts).toHaveLength(2);
    expect(outcome.attempts[0].status).toBeUndefined();
    expect(outcome.attempts[0].error).toMatch(/^timeout: /);
    expect(outcome.attempts[1].status).toBe(200);
    expect(tunnel.received).toHaveLength(2);
  });

  it('stops at a 400: not retried', async () => {
    const tunnel = await receiver([answer(400), answer(200)]);
    const options = optionsWith();
    const outcome = await deliverToTunnel(tunnel.url, event, options);
    expect(outcome).toEqual({ delivered: false, attempts: [expect.objectContaining({ status: 400 })] });
    expect(tunnel.received).toHaveLength(1);
    expect(options.sleeps).toEqual([]);
  });

  it.each([401, 404, 410, 301])('stops at a %i', async (status) => {
    const tunnel = await receiver([answer(status, status === 301 ? { location: '/elsewhere' } : {}), answer(200)]);
    const outcome = await deliverToTunnel(tunnel.url, event, optionsWith());
    expect(outcome.delivered).toBe(false);
    expect(outcome.attempts).toHaveLength(1);
  });

  it.each([408, 429, 502, 503])('retries a %i', async (status) => {
    const tunnel = await receiver([answer(status), answer(200)]);
    const outcome = await deliverToTunnel(tunnel.url, event, optionsWith());
    expect(outcome.attempts.map((attempt) => attempt.status)).toEqual([status, 200]);
    expect(outcome.delivered).toBe(true);
  });

  it('waits at least a Retry-After of a 429, up to maxDelayMs', async () => {
    const tunnel = await receiver([answer(429, { 'retry-after': '3' }), answer(503, { 'retry-after': '120' }), answer(200)]);
    const options = optionsWith({ maxDelayMs: 10_000 });
    const outcome = await deliverToTunnel(tunnel.url, event, options);
    expect(outcome.delivered).toBe(true);
    expect(options.sleeps).toEqual([3_000, 10_000]);
  });

  it('gives up after maxAttempts, every attempt recorded', async () => {
    const tunnel = await receiver([answer(503)]);
    const options = optionsWith({ maxAttempts: 4 });
    const outcome = await deliverToTunnel(tunnel.url, event, options);
    expect(outcome.delivered).toBe(false);
    expect(outcome.attempts.map((attempt) => attempt.status)).toEqual([503, 503, 503, 503]);
    expect(tunnel.received).toHaveLength(4);
    expect(options.sleeps).toHaveLength(3); // none after the last attempt
  });

  it('gives up on a receiver that cannot be reached, every attempt recorded', async () => {
    const tunnel = await startReceiver([answer(200)]);
    await tunnel.close();
    const outcome = await deliverToTunnel(tunnel.url, event, optionsWith({ maxAttempts: 3 }));
    expect(outcome.delivered).toBe(false);
    expect(outcome.attempts).toHaveLength(3);
    for (const attempt of outcome.attempts) {
      expect(attempt.status).toBeUndefined();
      expect(attempt.error).toMatch(/^network: /);
    }
  });

  it('does not retry a refused address (private networks not allowed)', async () => {
    const tunnel = await receiver([answer(200)]);
    const outcome = await deliverToTunnel(tunnel.url, event, optionsWith({ allowPrivateNetworks: false }));
    expect(outcome.delivered).toBe(false);
    expect(outcome.attempts).toHaveLength(1);
    expect(outcome.attempts[0].error).toMatch(/^refused: /);
    expect(tunnel.received).toHaveLength(0);
  });

  it('uses the injected request', async () => {
    const calls: Array<{ url: string; method?: string; headers?: Record<string, string> }> = [];
    const outcome = await deliverToTunnel(
      'https://tunnel.example/in',
      event,
      optionsWith({
        request: async (url, options) => {
          calls.push({ url, method: options.method, headers: options.headers });
          return { status: 202, headers: {}, body: Buffer.alloc(0) };
        },
      }),
    );
    expect(outcome.delivered).toBe(true);
    expect(calls).toEqual([
      { url: 'https://tunnel.example/in', method: 'POST', headers: expect.objectContaining({ [EVENT_ID_HEADER]: 'evt_01HZX' }) },
    ]);
  });

  it('refuses an event without an id and a maxAttempts below 1', async () => {
    const noId = { ...event, eventId: '' };
    await expect(deliverToTunnel('https://tunnel.example/in', noId, optionsWith())).rejects.toThrow(TypeError);
    await expect(deliverToTunnel('https://tunnel.example/in', event, optionsWith({ maxAttempts: 0 }))).rejects.toThrow(RangeError);
  });
});

describe('backoffDelay', () => {
  const options = { baseDelayMs: 200, maxDelayMs: 30_000 };

  it('grows exponentially up to maxDelay (its ceiling, random() near 1)', () => {
    const ceilings = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((attempt) => backoffDelay(attempt, options, () => 1));
    expect(ceilings).toEqual([200, 400, 800, 1600, 3200, 6400, 12_800, 25_600, 30_000]);
    expect(backoffDelay(2, options, () => 0.5)).toBe(2 * backoffDelay(1, options, () => 0.5));
  });

  it('stays within [0, maxDelay] for any jitter and any attempt', () => {
    let seed = 42;
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let attempt = 1; attempt <= 2000; attempt++) {
      const delay = backoffDelay(attempt, options, random);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(Math.min(30_000, 200 * 2 ** (attempt - 1)));
    }
    expect(backoffDelay(1, options, () => 0)).toBe(0);
    expect(backoffDelay(3, options, () => 2)).toBe(800);
    expect(backoffDelay(3, options, () => -1)).toBe(0);
    expect(backoffDelay(3, options, () => Number.NaN)).toBe(0);
  });
});

describe('verifySignature', () => {
  const body = JSON.stringify(event);
  const at = new Date('2030-01-01T00:00:00.000Z');
  const t = at.getTime() / 1000;
  const header = `t=${t},v1=${signature(SECRET, t, body)}`;

  it('accepts the signature of the body within the tolerance', () => {
    expect(verifySignature(SECRET, header, body, at)).toBe(true);
    expect(verifySignature(SECRET, header, body, new Date(at.getTime() + 299_000))).toBe(true);
    expect(verifySignature(SECRET, `t=${t},v1=${'0'.repeat(64)},v1=${signature(SECRET, t, body)}`, body, at)).toBe(true);
  });

  it('refuses another secret, another body, a stale or future timestamp, and a malformed header', () => {
    expect(verifySignature('another secret', header, body, at)).toBe(false);
    expect(verifySignature(SECRET, header, `${body} `, at)).toBe(false);
    expect(verifySignature(SECRET, header, body, new Date(at.getTime() + 301_000))).toBe(false);
    expect(verifySignature(SECRET, header, body, new Date(at.getTime() - 301_000))).toBe(false);
    expect(verifySignature(SECRET, header, body, new Date(at.getTime() + 3_600_000), 7200)).toBe(true);
    expect(verifySignature(SECRET, '', body, at)).toBe(false);
    expect(verifySignature(SECRET, `v1=${signature(SECRET, t, body)}`, body, at)).toBe(false);
    expect(verifySignature(SECRET, `t=${t}`, body, at)).toBe(false);
    expect(verifySignature(SECRET, `t=${t},v1=abc`, body, at)).toBe(false);
    expect(verifySignature(SECRET, `t=-5,v1=${signature(SECRET, -5, body)}`, body, at)).toBe(false);
    expect(verifySignature(SECRET, `t=${t},t=${t},v1=${signature(SECRET, t, body)}`, body, at)).toBe(false);
  });
});
