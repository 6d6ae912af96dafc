import {
  expiresAt,
  idempotencyRecordId,
  idempotencyScope,
  isExpired,
  isRecordedStatus,
  keyOutcome,
  parseIdempotencyKey,
  requestFingerprint,
  storedResponse,
  type IdempotencyRecord,
} from './idempotency-key';

const NOW = new Date('2026-01-01T12:00:00.000Z');
const DAY_MS = 24 * 60 * 60 * 1000;

const fingerprint = (overrides: Partial<Parameters<typeof requestFingerprint>[0]> = {}) =>
  requestFingerprint({ method: 'POST', url: '/v1/orgs/o1/spaces', scope: 'token:t1', bodySha256: 'abc', ...overrides });

const record = (overrides: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
  _id: 'id',
  scope: 'token:t1',
  fingerprint: fingerprint(),
  state: 'completed',
  createdAt: NOW.toISOString(),
  expiresAt: expiresAt(NOW, DAY_MS),
  response: { status: 201, headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"id":"s1"}' },
  ...overrides,
});

describe('Idempotency-Key: the header', () => {
  it('given a quoted string, then the key is its content', () => {
    expect(parseIdempotencyKey('"8e03978e-40d5-43e8-bc93-6894a57f9324"')).toEqual({
      ok: true,
      key: '8e03978e-40d5-43e8-bc93-6894a57f9324',
    });
  });

  it('given parameters after the string, then they are ignored', () => {
    expect(parseIdempotencyKey('"k1";note=1')).toEqual({ ok: true, key: 'k1' });
  });

  it('given 255 characters, then the key is accepted', () => {
    expect(parseIdempotencyKey(`"${'k'.repeat(255)}"`)).toEqual({ ok: true, key: 'k'.repeat(255) });
  });

  it.each([
    ['empty', '""', /must not be empty/],
    ['an empty header', '', /quoted string/],
    ['over 255 characters', `"${'k'.repeat(256)}"`, /at most 255/],
    ['unquoted (a token, not a string)', 'abc-123', /Structured Field String/],
    ['a number', '42', /Structured Field String/],
    ['unterminated', '"abc', /quoted string/],
    ['with a non-ASCII character', '"clé"', /quoted string/],
    ['a list', '"a", "b"', /quoted string/],
  ])('given a key %s, then it is refused', (_case, header, problem) => {
    const parsed = parseIdempotencyKey(header);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.problem).toMatch(problem);
  });

  it('given the header twice, then it is refused', () => {
    expect(parseIdempotencyKey(['"a"', '"a"'])).toEqual({ ok: false, problem: 'Idempotency-Key must be sent once' });
  });
});

describe('Idempotency-Key: scope and fingerprint', () => {
  it('keys of different tokens never share a record', () => {
    const ada = idempotencyScope({ kind: 'user', tokenId: 't1' });
    const bob = idempotencyScope({ kind: 'user', tokenId: 't2' });
    expect(idempotencyRecordId(ada, 'k')).not.toBe(idempotencyRecordId(bob, 'k'));
    expect(idempotencyRecordId(ada, 'k')).toBe(idempotencyRecordId(ada, 'k'));
  });

  it('the admin token has a scope of its own', () => {
    expect(idempotencyScope({ kind: 'admin' })).toBe('admin');
  });

  it('a scope and key that run together are still told apart', () => {
    expect(idempotencyRecordId('token:a', 'b\nc')).not.toBe(idempotencyRecordId('token:a\nb', 'c'));
  });

  it('the same request gives the same fingerprint', () => {
    expect(fingerprint()).toBe(fingerprint());
  });

  it.each([
    ['method', { method: 'PUT' }],
    ['path', { url: '/v1/orgs/o2/spaces' }],
    ['query', { url: '/v1/orgs/o1/spaces?x=1' }],
    ['caller', { scope: 'token:t2' }],
    ['body', { bodySha256: 'abd' }],
  ])('another %s gives another fingerprint', (_what, change) => {
    expect(fingerprint(change)).not.toBe(fingerprint());
  });
});

describe('Idempotency-Key: what a request meets', () => {
  it('given no record, then the request runs', () => {
    expect(keyOutcome(null, fingerprint(), NOW)).toEqual({ kind: 'run' });
  });

  it('given a completed record of the same request, then its answer is replayed', () => {
    expect(keyOutcome(record(), fingerprint(), NOW)).toEqual({ kind: 'replay', response: record().response });
  });

  it('given a record of another request, then a mismatch (422)', () => {
    expect(keyOutcome(record(), fingerprint({ bodySha256: 'other' }), NOW)).toEqual({ kind: 'mismatch' });
  });

  it('given an in-progress record of another request, then a mismatch too', () => {
    expect(keyOutcome(record({ state: 'in-progress', response: undefined }), fingerprint({ bodySha256: 'other' }), NOW)).toEqual({
      kind: 'mismatch',
    });
  });

  it('given an in-progress record of the same request, then in progress (409)', () => {
    expect(keyOutcome(record({ state: 'in-progress', response: undefined }), fingerprint(), NOW)).toEqual({ kind: 'in-progress' });
  });

  it('given a completed record whose answer was too large to keep, then not kept', () => {
    expect(keyOutcome(record({ response: { status: 200, headers: {}, omittedBytes: 70_000 } }), fingerprint(), NOW)).toEqual({
      kind: 'not-kept',
      bytes: 70_000,
    });
  });

  it('given a record past its expiry, then the key is free: the request runs, whatever it is', () => {
    const later = new Date(NOW.getTime() + DAY_MS);
    expect(keyOutcome(record(), fingerprint(), later)).toEqual({ kind: 'run' });
    expect(keyOutcome(record(), fingerprint({ bodySha256: 'other' }), later)).toEqual({ kind: 'run' });
  });
});

describe('Idempotency-Key: expiry', () => {
  it('a record expires its time to live after it was made', () => {
    expect(expiresAt(NOW, DAY_MS)).toBe('2026-01-02T12:00:00.000Z');
  });

  it('a record is live until its expiry, and expired from it on', () => {
    const expiry = { expiresAt: '2026-01-02T12:00:00.000Z' };
    expect(isExpired(expiry, new Date('2026-01-02T11:59:59.999Z'))).toBe(false);
    expect(isExpired(expiry, new Date('2026-01-02T12:00:00.000Z'))).toBe(true);
  });
});

describe('Idempotency-Key: what is recorded', () => {
  it.each([200, 201, 204, 400, 404, 409, 422, 499])('a %i answer is recorded', (status) => {
    expect(isRecordedStatus(status)).toBe(true);
  });

  it.each([500, 502, 503])('a %i answer is not: a retry may run again', (status) => {
    expect(isRecordedStatus(status)).toBe(false);
  });

  it('keeps the status, the headers a client acts on, and the text of the body', () => {
    const headers = {
      'content-type': 'application/json',
      location: '/v1/spaces/s1',
      etag: '"3"',
      'x-request-id': 'r1',
      'x-ratelimit-remaining': '9',
      'content-length': 11,
    };
    expect(storedResponse(201, headers, '{"id":"s1"}', 1024)).toEqual({
      status: 201,
      headers: { 'content-type': 'application/json', location: '/v1/spaces/s1', etag: '"3"' },
      body: '{"id":"s1"}',
    });
  });

  it('keeps bytes as base64', () => {
    expect(storedResponse(200, {}, Buffer.from([0, 255]), 1024)).toEqual({ status: 200, headers: {}, body: 'AP8=', base64: true });
  });

  it('given a body over the limit in bytes, then only its size is kept', () => {
    expect(storedResponse(200, {}, 'é'.repeat(6), 11)).toEqual({ status: 200, headers: {}, omittedBytes: 12 });
  });
});
