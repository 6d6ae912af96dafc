import { checkVerificationRecord, txtResolver, type TxtResolver } from './verified-domain.dns';
import { FakeDns } from '#testing/fake-dns';

let dns: FakeDns;
let resolver: TxtResolver;

beforeAll(async () => {
  dns = await FakeDns.start();
  resolver = txtResolver([dns.server]);
});
afterAll(() => dns.close());
beforeEach(() => dns.records.clear());

describe('domain verification through DNS (node resolver, DNS_SERVERS pointing at a local responder)', () => {
  it('finds the TXT record at _docs-platform-verification.<domain> holding the token', async () => {
    dns.records.set('_docs-platform-verification.acme.io', ['v=spf1 -all', 'docs-platform-verification=tok123']);
    expect(await checkVerificationRecord(resolver, 'acme.io', 'tok123')).toEqual({ found: true });
  });

  it('joins a long record split into chunks', async () => {
    const token = 'x'.repeat(300);
    dns.records.set('_docs-platform-verification.acme.io', [`docs-platform-verification=${token}`]);
    expect(await checkVerificationRecord(resolver, 'acme.io', token)).toEqual({ found: true });
  });

  it('does not accept another token, or the token at another name', async () => {
    dns.records.set('_docs-platform-verification.acme.io', ['docs-platform-verification=old']);
    dns.records.set('acme.io', ['docs-platform-verification=tok123']);
    expect(await checkVerificationRecord(resolver, 'acme.io', 'tok123')).toEqual({
      found: false,
      reason: 'no TXT record "docs-platform-verification=tok123" at _docs-platform-verification.acme.io',
    });
  });

  it('reports a name without records as not found', async () => {
    expect(await checkVerificationRecord(resolver, 'nothing.example', 'tok')).toEqual({
      found: false,
      reason: 'no TXT record at _docs-platform-verification.nothing.example',
    });
  });

  it('reports a failing lookup as a failure to retry, never as found', async () => {
    const failing: TxtResolver = { resolveTxt: async () => Promise.reject(Object.assign(new Error('timeout'), { code: 'ETIMEOUT' })) };
    expect(await checkVerificationRecord(failing, 'acme.io', 'tok')).toEqual({
      found: false,
      reason: expect.stringMatching(/failed \(ETIMEOUT\); retry later/),
    });
  });
});
