import { emailClaimDecider, emailClaimStream, tokenDecider, userDecider } from './identity.decider';

const now = '2026-01-01T00:00:00.000Z';

describe('identity deciders', () => {
  it('given no user, when created, then UserCreated with the e-mail normalized', () => {
    expect(userDecider.decide({ kind: 'CreateUser', userId: 'u1', email: ' Ada@Example.COM ', displayName: 'Ada', photoURL: null, now }, userDecider.initialState())).toEqual([
      { type: 'UserCreated', data: { userId: 'u1', email: 'ada@example.com', displayName: 'Ada', photoURL: null, createdAt: now } },
    ]);
  });

  it('given an e-mail claimed by one user, when another claims it in other case, then 409; the holder again, nothing', () => {
    const held = emailClaimDecider.evolve(emailClaimDecider.initialState(), { type: 'EmailClaimed', data: { email: 'ada@example.com', userId: 'u1' } });
    expect(emailClaimDecider.decide({ kind: 'ClaimEmail', email: 'ADA@example.com', userId: 'u2' }, held)).toMatchObject({ status: 409 });
    expect(emailClaimDecider.decide({ kind: 'ClaimEmail', email: 'ada@example.com', userId: 'u1' }, held)).toEqual([]);
    expect(emailClaimStream('ADA@example.com ')).toBe(emailClaimStream('ada@example.com'));
  });

  it('given an issued token, when revoked, then the revocation carries its hash; revoking again is 404', () => {
    const issued = tokenDecider.evolve(tokenDecider.initialState(), { type: 'AccessTokenIssued', data: { tokenId: 't1', userId: 'u1', tokenHash: 'h', issuedAt: now } });
    const revoked = tokenDecider.decide({ kind: 'RevokeToken', tokenId: 't1', now }, issued);
    expect(revoked).toEqual([{ type: 'AccessTokenRevoked', data: { tokenId: 't1', userId: 'u1', tokenHash: 'h', revokedAt: now } }]);
    const after = (revoked as Parameters<typeof tokenDecider.evolve>[1][]).reduce(tokenDecider.evolve, issued);
    expect(tokenDecider.decide({ kind: 'RevokeToken', tokenId: 't1', now }, after)).toMatchObject({ status: 404 });
    expect(tokenDecider.decide({ kind: 'RevokeToken', tokenId: 'nope', now }, tokenDecider.initialState())).toMatchObject({ status: 404 });
  });
});
