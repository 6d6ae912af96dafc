import { deciderSpec, type EventOf } from '#testing';
import { emailClaimDecider, emailClaimStream, tokenDecider, userDecider } from './identity.decider';

const now = '2026-01-01T00:00:00.000Z';

describe('user decider', () => {
  it('given no user, when created, then UserCreated with the e-mail normalized', () => {
    deciderSpec(userDecider)
      .given([])
      .when({ kind: 'CreateUser', userId: 'u1', email: ' Ada@Example.COM ', displayName: 'Ada', photoURL: null, now })
      .then([
        { type: 'UserCreated', data: { userId: 'u1', email: 'ada@example.com', displayName: 'Ada', photoURL: null, createdAt: now } },
      ]);
  });

  const created: EventOf<typeof userDecider>[] = [
    { type: 'UserCreated', data: { userId: 'u1', email: 'ada@example.com', displayName: 'Ada', photoURL: null, createdAt: now } },
  ];

  it('given a user, when created again, then 409', () => {
    deciderSpec(userDecider)
      .given(created)
      .when({ kind: 'CreateUser', userId: 'u1', email: 'ada@example.com', displayName: 'Ada', photoURL: null, now })
      .thenFails(409);
  });

  it('given a user, when their profile is updated, then UserUpdated with only what changed', () => {
    deciderSpec(userDecider)
      .given(created)
      .when({ kind: 'UpdateUserProfile', userId: 'u1', changes: { displayName: 'Ada L.', photoURL: null }, now })
      .then([{ type: 'UserUpdated', data: { userId: 'u1', changes: { displayName: 'Ada L.' }, updatedAt: now } }]);
  });

  it('given a user, when the update changes nothing, then nothing', () => {
    deciderSpec(userDecider)
      .given(created)
      .when({ kind: 'UpdateUserProfile', userId: 'u1', changes: { displayName: 'Ada' }, now })
      .thenNothing();
  });

  it('given a renamed user, when renamed back, then UserUpdated (the state follows updates)', () => {
    const renamed: EventOf<typeof userDecider>[] = [
      ...created,
      { type: 'UserUpdated', data: { userId: 'u1', changes: { displayName: 'Ada L.' }, updatedAt: now } },
    ];
    deciderSpec(userDecider)
      .given(renamed)
      .when({ kind: 'UpdateUserProfile', userId: 'u1', changes: { displayName: 'Ada' }, now })
      .then([{ type: 'UserUpdated', data: { userId: 'u1', changes: { displayName: 'Ada' }, updatedAt: now } }]);
  });

  it('given no user, when a profile is updated, then 404', () => {
    deciderSpec(userDecider)
      .given([])
      .when({ kind: 'UpdateUserProfile', userId: 'u1', changes: { displayName: 'X' }, now })
      .thenFails(404);
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
  const issued: EventOf<typeof tokenDecider>[] = [
    { type: 'AccessTokenIssued', data: { tokenId: 't1', userId: 'u1', tokenHash: 'h', issuedAt: now } },
  ];
  const revoked: EventOf<typeof tokenDecider>[] = [
    ...issued,
    { type: 'AccessTokenRevoked', data: { tokenId: 't1', userId: 'u1', tokenHash: 'h', revokedAt: now } },
  ];

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
