import { createHmac } from 'node:crypto';
import { deliverToTunnel, signature, SIGNATURE_HEADER, verifySignature } from './tunnel-delivery';

/**
 * What the tunnel signature signs, pinned by known answers a receiver can compute on its own:
 * HMAC-SHA256 with the installation's secret over `<unix seconds>.<body>`, as lowercase hex, sent as
 * `x-integration-signature: t=<unix seconds>,v1=<hex>`.
 */
const SECRET = 'whsec_test_secret';
const T = 1_893_456_000; // 2030-01-01T00:00:00Z
const AT = new Date(T * 1000);
const BODY = '{"eventId":"evt_1","type":"space_content_updated"}';
/** Computed outside the service (node -e with crypto.createHmac) and kept as text. */
const KNOWN_ANSWER = '8c99e9abffcb5f14a7183508e52365fdfa8dbaefc9296a4d6cc89bce12a2f8ab';

describe('tunnel signature', () => {
  // Mutations pinned: another digest, another encoding, another separator or order of timestamp and body.
  it('given a secret, a timestamp and a body, then the signature is HMAC-SHA256 over `t.body`, lowercase hex (known answer)', () => {
    expect(signature(SECRET, T, BODY)).toBe(KNOWN_ANSWER);
    expect(signature(SECRET, T, BODY)).toBe(createHmac('sha256', SECRET).update(`${T}.${BODY}`).digest('hex'));
  });

  it('given the known answer in a header, when verified at its time, then it is accepted', () => {
    expect(verifySignature(SECRET, `t=${T},v1=${KNOWN_ANSWER}`, BODY, AT)).toBe(true);
  });

  it('given the known answer in uppercase hex, then it is accepted (hex is read case-insensitively)', () => {
    expect(verifySignature(SECRET, `t=${T},v1=${KNOWN_ANSWER.toUpperCase()}`, BODY, AT)).toBe(true);
  });

  it('given spaces around the parts of the header, then it is accepted', () => {
    expect(verifySignature(SECRET, ` t = ${T} , v1 = ${KNOWN_ANSWER} `, BODY, AT)).toBe(true);
  });

  it('given a part without `=` or an unknown key, then it is ignored', () => {
    expect(verifySignature(SECRET, `t=${T},junk,v0=abc,v1=${KNOWN_ANSWER}`, BODY, AT)).toBe(true);
  });

  // Mutation pinned: verifying against a timestamp other than the header's (the signature binds its time).
  it('given a signature replayed with another timestamp (within the tolerance), then it is refused', () => {
    expect(verifySignature(SECRET, `t=${T + 60},v1=${KNOWN_ANSWER}`, BODY, AT)).toBe(false);
    expect(verifySignature(SECRET, `t=${T - 1},v1=${KNOWN_ANSWER}`, BODY, AT)).toBe(false);
  });

  it('given a signature exactly at the tolerance, then it is accepted; one second past, refused', () => {
    const header = `t=${T},v1=${KNOWN_ANSWER}`;
    expect(verifySignature(SECRET, header, BODY, new Date((T + 300) * 1000))).toBe(true);
    expect(verifySignature(SECRET, header, BODY, new Date((T - 300) * 1000))).toBe(true);
    expect(verifySignature(SECRET, header, BODY, new Date((T + 301) * 1000))).toBe(false);
    expect(verifySignature(SECRET, header, BODY, new Date((T - 301) * 1000 - 1))).toBe(false);
  });

  it('given a timestamp of more than 15 digits, or not digits, then it is refused', () => {
    expect(verifySignature(SECRET, `t=${'1'.repeat(16)},v1=${KNOWN_ANSWER}`, BODY, AT, Number.MAX_SAFE_INTEGER)).toBe(false);
    expect(verifySignature(SECRET, `t=${T}.0,v1=${KNOWN_ANSWER}`, BODY, AT)).toBe(false);
    expect(verifySignature(SECRET, `t=x${T},v1=${KNOWN_ANSWER}`, BODY, AT)).toBe(false);
  });

  it('given an invalid date as now, then it is refused', () => {
    expect(verifySignature(SECRET, `t=${T},v1=${KNOWN_ANSWER}`, BODY, new Date(Number.NaN), Number.POSITIVE_INFINITY)).toBe(false);
  });

  it('given a signature of the right length that differs, then it is refused', () => {
    const flipped = `${KNOWN_ANSWER.slice(0, -1)}${KNOWN_ANSWER.endsWith('b') ? 'a' : 'b'}`;
    expect(verifySignature(SECRET, `t=${T},v1=${flipped}`, BODY, AT)).toBe(false);
  });

  it('given a delivery at a known time, then its header is `t=<seconds>,v1=<known answer>`', async () => {
    const sent: Array<Record<string, string> | undefined> = [];
    await deliverToTunnel(
      'https://tunnel.example/in',
      { eventId: 'evt_1', type: 'space_content_updated' },
      {
        secret: SECRET,
        maxAttempts: 1,
        baseDelayMs: 0,
        maxDelayMs: 0,
        timeoutMs: 1000,
        allowPrivateNetworks: false,
        now: () => new Date(AT.getTime() + 999),
        request: async (_url, options) => {
          sent.push(options.headers);
          return { status: 200, headers: {}, body: Buffer.alloc(0) };
        },
      },
    );
    expect(sent[0]?.[SIGNATURE_HEADER]).toBe(`t=${T},v1=${KNOWN_ANSWER}`);
  });
});
