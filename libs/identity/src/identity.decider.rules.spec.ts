import { createHash } from 'node:crypto';
import { deciderSpec, type EventOf } from '#testing';
import { emailClaimDecider, emailClaimStream, tokenDecider, tokenStream, userDecider, userStream } from './identity.decider';

/** The identity deciders' stream names, refusals and the rules the first spec leaves implicit. */
const now = '2026-01-01T00:00:00.000Z';
const created: EventOf<typeof userDecider>[] = [
  { type: 'UserCreated', data: { userId: 'u1', email: 'ada@example.com', displayName: 'Ada', photoURL: null, createdAt: now } },
];

describe('identity streams', () => {
  it('names a user stream and a token stream by their ids', () => {
    expect(userStream('u1')).toBe('user-u1');
    expect(tokenStream('t1')).toBe('accesstoken-t1');
  });

  it('names an e-mail claim stream by the SHA-256 of the normalized address, in hex', () => {
    expect(emailClaimStream(' Ada@Example.com')).toBe(`emailclaim-${createHash('sha256').update('ada@example.com').digest('hex')}`);
  });
});

describe('user decider: refusals and profile changes', () => {
  const spec = deciderSpec(userDecider);

  it('given a user, when created again, then 409 naming them', () => {
    spec
      .given(created)
      .when({ kind: 'CreateUser', userId: 'u1', email: 'ada@example.com', displayName: 'Ada', photoURL: null, now })
      .thenFails(409, 'user u1 already exists');
  });

  it('given no user, when a profile is updated, then 404 naming the user', () => {
    spec
      .given([])
      .when({ kind: 'UpdateUserProfile', userId: 'u1', changes: { displayName: 'X' }, now })
      .thenFails(404, 'no user u1');
  });

  it('given a user, when only their photo changes, then UserUpdated with the photo alone', () => {
    spec
      .given(created)
      .when({ kind: 'UpdateUserProfile', userId: 'u1', changes: { photoURL: 'https://example.com/ada.png' }, now })
      .then([{ type: 'UserUpdated', data: { userId: 'u1', changes: { photoURL: 'https://example.com/ada.png' }, updatedAt: now } }]);
  });

  it('given a user, when an update sends only their current photo, then nothing (a name left out is no change)', () => {
    spec
      .given(created)
      .when({ kind: 'UpdateUserProfile', userId: 'u1', changes: { photoURL: null }, now })
      .thenNothing();
  });

  it('given a user with a photo, when the same photo is sent, then nothing', () => {
    const withPhoto: EventOf<typeof userDecider>[] = [
      ...created,
      { type: 'UserUpdated', data: { userId: 'u1', changes: { photoURL: 'p' }, updatedAt: now } },
    ];
    spec
      .given(withPhoto)
      .when({ kind: 'UpdateUserProfile', userId: 'u1', changes: { photoURL: 'p', displayName: 'Ada' }, now })
      .thenNothing();
  });
});

describe('e-mail claim decider: a free address', () => {
  it('given a free address, when a user claims it, then EmailClaimed with the address normalized', () => {
    deciderSpec(emailClaimDecider)
      .given([])
      .when({ kind: 'ClaimEmail', email: ' Ada@Example.COM', userId: 'u1' })
      .then([{ type: 'EmailClaimed', data: { email: 'ada@example.com', userId: 'u1' } }]);
  });

  it('given an address held by one user, when another claims it, then 409 naming the normalized address', () => {
    deciderSpec(emailClaimDecider)
      .given([{ type: 'EmailClaimed', data: { email: 'ada@example.com', userId: 'u1' } }])
      .when({ kind: 'ClaimEmail', email: 'ADA@example.com', userId: 'u2' })
      .thenFails(409, 'a user with e-mail ada@example.com already exists');
  });
});

describe('token decider: issue', () => {
  const spec = deciderSpec(tokenDecider);
  const issued: EventOf<typeof tokenDecider>[] = [
    { type: 'AccessTokenIssued', data: { tokenId: 't1', userId: 'u1', tokenHash: 'h', issuedAt: now } },
  ];

  it('given no token, when issued, then AccessTokenIssued with its user and hash', () => {
    spec.given([]).when({ kind: 'IssueToken', tokenId: 't1', userId: 'u1', tokenHash: 'h', now }).then(issued);
  });

  it('given an issued token, when issued again, then 409 naming it', () => {
    spec
      .given(issued)
      .when({ kind: 'IssueToken', tokenId: 't1', userId: 'u1', tokenHash: 'h', now })
      .thenFails(409, 'token t1 already exists');
  });

  it('given a revoked token, when issued again under its id, then 409: a token id is never reused', () => {
    const revoked: EventOf<typeof tokenDecider>[] = [
      ...issued,
      { type: 'AccessTokenRevoked', data: { tokenId: 't1', userId: 'u1', tokenHash: 'h', revokedAt: now } },
    ];
    spec
      .given(revoked)
      .when({ kind: 'IssueToken', tokenId: 't1', userId: 'u1', tokenHash: 'h2', now })
      .thenFails(409, 'token t1 already exists');
  });

  it('given no token, when revoking it, then 404 naming it', () => {
    spec.given([]).when({ kind: 'RevokeToken', tokenId: 'nope', now }).thenFails(404, 'no token nope');
  });
});
