import { Writable } from 'node:stream';
import { createLogger, isCredentialParameter, redactSecrets } from './logging';

describe('redactSecrets', () => {
  it('replaces the values of shareKey and jwt_token in a URL, keeping the other parameters', () => {
    expect(redactSecrets('/sites/s1/page?shareKey=secretvalue&utm=x&jwt_token=eyJ.abc.def')).toBe(
      '/sites/s1/page?shareKey=[redacted]&utm=x&jwt_token=[redacted]',
    );
  });

  it.each([
    'token',
    'access_token',
    'key',
    'api_key',
    'secret',
    'client_secret',
    'password',
    'code',
    'signature',
    'sig',
    'SAMLResponse',
    'SAMLRequest',
    'RelayState',
    'auth',
    'SHAREKEY',
    'share%4Bey',
  ])('redacts the value of %s', (name) => {
    expect(redactSecrets(`https://docs.example/x?a=1&${name}=s3cr3t-value`)).toBe(`https://docs.example/x?a=1&${name}=[redacted]`);
  });

  it('leaves parameters that carry no credential as they are', () => {
    expect(redactSecrets('/v1/orgs/o1/spaces?limit=10&page=abc&format=markdown&revision=r1')).toBe(
      '/v1/orgs/o1/spaces?limit=10&page=abc&format=markdown&revision=r1',
    );
    expect(
      ['limit', 'page', 'format', 'revision', 'only', 'expires', 'title', 'authors', 'status', 'contributor'].filter(isCredentialParameter),
    ).toEqual([]);
  });

  it('redacts the signature of a download URL but keeps its expiry', () => {
    expect(redactSecrets('/v1/spaces/s1/change-requests/c1/pdf/download?revision=r1&expires=1767225600&signature=AbC-_xyz')).toBe(
      '/v1/spaces/s1/change-requests/c1/pdf/download?revision=r1&expires=1767225600&signature=[redacted]',
    );
  });

  it('redacts a credential in a URL nested in another parameter’s value', () => {
    expect(redactSecrets('/login?next=https://docs.example/a?token=s3cr3t')).toBe('/login?next=https://docs.example/a?token=[redacted]');
  });

  it('redacts the whole value, JSON escapes included, and stops at the closing quote of a JSON string', () => {
    const line = JSON.stringify({ url: '/x?shareKey=ab"cd\\ef&page=2', status: 200 });
    expect(redactSecrets(line)).toBe('{"url":"/x?shareKey=[redacted]&page=2","status":200}');
  });

  it('redacts URLs inside messages and stacks, ending the value at a line break', () => {
    const line = JSON.stringify({
      err: {
        message: 'fetch failed: https://idp.example/sso?SAMLResponse=PHNhbWw+&RelayState=r3l4y',
        stack: 'Error: GET /x?token=abc\n    at handler',
      },
    });
    const redacted = redactSecrets(line);
    expect(redacted).not.toMatch(/PHNhbWw|r3l4y|abc/);
    expect(JSON.parse(redacted).err.stack).toBe('Error: GET /x?token=[redacted]\n    at handler');
  });

  it('redacts the service’s own bearer tokens wherever they appear', () => {
    const token = 'dpt_q8Yk3mV9xZ1bN4cR7tW2sL5hJ0gF6dA8eU3iO1pK9yM';
    expect(redactSecrets(`{"msg":"Authorization: Bearer ${token}"}`)).toBe('{"msg":"Authorization: Bearer [redacted]"}');
  });

  it('leaves a text without any of these unchanged', () => {
    const line = '{"level":"info","requestId":"r-1","method":"GET","url":"/v1/user","status":200,"msg":"request"}\n';
    expect(redactSecrets(line)).toBe(line);
  });
});

describe('the logger', () => {
  function capture(): { lines: string[]; stream: Writable } {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    return { lines, stream };
  }

  it('writes no credential of a URL, whichever field or message holds it', () => {
    const { lines, stream } = capture();
    const logger = createLogger('info', stream);
    logger.info({ url: '/sites/s1?shareKey=secretvalue&jwt_token=eyJhbGciOi.eyJzdWIi.c2ln' }, 'request');
    logger.error({ err: new Error('could not fetch https://x.example/?code=0auth-c0de') }, 'request failed at /y?token=t0ken');
    const output = lines.join('');
    expect(output).toContain('shareKey=[redacted]');
    for (const secret of ['secretvalue', 'eyJhbGciOi', '0auth-c0de', 't0ken']) expect(output).not.toContain(secret);
  });

  it('censors credential headers if an object carrying headers is ever logged', () => {
    const { lines, stream } = capture();
    createLogger('info', stream).info(
      { req: { headers: { authorization: 'Bearer abc.def', cookie: 'site_share_key=k3y', 'user-agent': 'curl' } } },
      'request',
    );
    const output = lines.join('');
    expect(output).not.toMatch(/abc\.def|k3y/);
    expect(output).toContain('curl');
  });
});
