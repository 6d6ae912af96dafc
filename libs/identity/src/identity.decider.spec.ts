import { deciderSpec, type EventOf } from '../../testing/src';
import { emailClaimDecider, emailClaimStream, tokenDecider, userDecider } from './identity.decider';

const now = '2026-01-01T00:00:00.000Z';

describe('user decider', () => {
  it('given no user, when created, then UserCreated with the e-mail normalized', () => {
    deciderSpec(userDecider)
      .given([])
      .when({ kind: 'CreateUser', userId: 'u1', email: ' Ada@Example.COM ', displayName: 'Ada', photoURL: null, now })
      .then([{ type: 'UserCreated', data: { userId: 'u1', email: 'ada@example.com', displayName: 'Ada', photoURL: null, createdAt: now } }]);
  });
});

describe('e-mail claim decider', () => {
  const held: EventOf<typeof emailClaimDecider>[] = [{ type: 'EmailClaimed', data: { email: 'ada@example.com', userId: 'u1' } }];

  it('given an e-mail claimed by one user, when another claims it in other case, then 409', () => {
    deciderSpec(emailClaimDecider).given(held).when({ kind: 'ClaimEmail', email: 'ADA@example.com', userId: 'u2' }).thenFails(409);
  });

  it('given an e-mail claimed by one user, when the holder claims it again, then nothing', () => {
    deciderSpec(emailClaimDecider).given(held).when({ kind: 'ClaimEmail', email: 'ada@example.com', userId: 'u1' }).thenNothing();
  });

  it('names the claim stream by the normalized address', () => {
    expect(emailClaimStream('ADA@example.com ')).toBe(emailClaimStream('ada@example.com'));
  });
});

describe('token decider', () => {
  const spec = deciderSpec(tokenDecider);
  const issued: EventOf<typeof tokenDecider>[] = [{ type: 'AccessTokenIssued', data: { tokenId: 't1', userId: 'u1', tokenHash: 'h', issuedAt: now } }];
  const revoked: EventOf<typeof tokenDecider>[] = [...issued, { type: 'AccessTokenRevoked', data: { tokenId: 't1', userId: 'u1', tokenHash: 'h', revokedAt: now } }];

  it('given an issued token, when revoked, then the revocation carries its hash', () => {
    spec.given(issued).when({ kind: 'RevokeToken', tokenId: 't1', now }).then(revoked.slice(1));
  });

  it('given a revoked token, when revoked again, then 404', () => {
    spec.given(revoked).when({ kind: 'RevokeToken', tokenId: 't1', now }).thenFails(404);
  });

  it('given no token, when revoking it, then 404', () => {
    spec.given([]).when({ kind: 'RevokeToken', tokenId: 'nope', now }).thenFails(404);
  });
});
