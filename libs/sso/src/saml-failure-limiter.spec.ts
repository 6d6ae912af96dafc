import { ManualClock } from '#platform/clock';
import { SamlFailureLimiter } from './saml-failure-limiter';

const refusal = (limiter: SamlFailureLimiter, address: string) => {
  try {
    limiter.check(address);
    return null;
  } catch (error) {
    return error as { status: number; headers: Record<string, string>; message: string };
  }
};

describe('failed SAML logins per client address', () => {
  it('lets an address fail up to the limit, then answers 429 with Retry-After', () => {
    const clock = new ManualClock();
    const limiter = new SamlFailureLimiter(3, clock);
    for (let i = 0; i < 3; i++) {
      expect(refusal(limiter, '10.0.0.1')).toBeNull();
      limiter.recordFailure('10.0.0.1');
    }
    clock.advance(15_000);
    expect(refusal(limiter, '10.0.0.1')).toMatchObject({ status: 429, headers: { 'Retry-After': '45' } });
  });

  it('counts each address on its own', () => {
    const limiter = new SamlFailureLimiter(1, new ManualClock());
    limiter.recordFailure('10.0.0.1');
    expect(refusal(limiter, '10.0.0.1')).toMatchObject({ status: 429 });
    expect(refusal(limiter, '10.0.0.2')).toBeNull();
  });

  it('forgets failures a minute after the first one', () => {
    const clock = new ManualClock();
    const limiter = new SamlFailureLimiter(1, clock);
    limiter.recordFailure('10.0.0.1');
    clock.advance(60_000);
    expect(refusal(limiter, '10.0.0.1')).toBeNull();
  });

  it('tracks at most maxAddresses, dropping the oldest', () => {
    const limiter = new SamlFailureLimiter(1, new ManualClock(), 100);
    for (let i = 0; i < 1000; i++) limiter.recordFailure(`10.0.${i >> 8}.${i & 255}`);
    expect(limiter.size).toBe(100);
    expect(refusal(limiter, '10.0.3.231')).toMatchObject({ status: 429 });
    expect(refusal(limiter, '10.0.0.0')).toBeNull();
  });
});
