import { createHmac } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { ManualClock } from '#platform/clock';
import type { AppConfig } from '#platform/config';
import { VisitorClaimsSigner, visitorClaimsKey } from './visitor-claims';

/** `serviceVisitorClaims`: an HS256 JWT of the user and organization, valid an hour, signed with a key derived from the admin token. */
const t0 = new Date('2026-01-01T00:00:00.000Z');
const config = { publicUrl: 'https://docs.example.com' } as AppConfig;

describe('visitor claims signer', () => {
  it('given an admin token, then the key is HMAC-SHA256 of “visitor-claims” under it (known answer)', () => {
    expect(Buffer.from(visitorClaimsKey('admin-token'))).toEqual(createHmac('sha256', 'admin-token').update('visitor-claims').digest());
  });

  it('given a user of an organization, when signed, then an HS256 JWT naming them, for the organization, issued now and valid an hour', async () => {
    const key = visitorClaimsKey('admin-token');
    const token = await new VisitorClaimsSigner(key, config, new ManualClock(t0)).sign('u1', 'o1', 'ada@example.com');
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const { payload } = await jwtVerify(token, key, {
      currentDate: t0,
      issuer: 'https://docs.example.com',
      audience: 'https://docs.example.com/v1/orgs/o1',
    });
    const now = t0.getTime() / 1000;
    expect(payload).toEqual({
      org: 'o1',
      email: 'ada@example.com',
      sub: 'u1',
      iss: 'https://docs.example.com',
      aud: 'https://docs.example.com/v1/orgs/o1',
      iat: now,
      exp: now + 3600,
    });
  });

  it('given a token signed with another admin token’s key, then it does not verify', async () => {
    const token = await new VisitorClaimsSigner(visitorClaimsKey('another'), config, new ManualClock(t0)).sign(
      'u1',
      'o1',
      'ada@example.com',
    );
    await expect(jwtVerify(token, visitorClaimsKey('admin-token'), { currentDate: t0 })).rejects.toThrow();
  });
});
