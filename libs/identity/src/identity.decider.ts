import { createHash } from 'node:crypto';
import { normalizeEmail } from '#platform/email';
import { DomainError } from '#platform/errors';
import type { Decider } from '#event-store/decider';
import type { IdentityEvent, UserProfileChanges } from './identity.events';

type Event<T extends IdentityEvent['type']> = Extract<IdentityEvent, { type: T }>;

export const userStream = (userId: string) => `user-${userId}`;
export const tokenStream = (tokenId: string) => `accesstoken-${tokenId}`;
/** The claim stream is named by the normalized address's hash. */
export const emailClaimStream = (email: string) => `emailclaim-${createHash('sha256').update(normalizeEmail(email)).digest('hex')}`;

// ---- user -------------------------------------------------------------------------------------

export interface UserState {
  exists: boolean;
  displayName: string;
  photoURL: string | null;
}
export type UserCommand =
  | { kind: 'CreateUser'; userId: string; email: string; displayName: string; photoURL: string | null; now: string }
  /** The user changes their own profile; members left out stay as they are. */
  | { kind: 'UpdateUserProfile'; userId: string; changes: UserProfileChanges; now: string };

export const userDecider: Decider<UserCommand, Event<'UserCreated' | 'UserUpdated'>, UserState> = {
  initialState: () => ({ exists: false, displayName: '', photoURL: null }),
  evolve(state, event) {
    if (event.type === 'UserCreated') return { exists: true, displayName: event.data.displayName, photoURL: event.data.photoURL };
    return { ...state, ...event.data.changes };
  },
  decide(command, state) {
    if (command.kind === 'UpdateUserProfile') {
      if (!state.exists) return DomainError.notFound(`no user ${command.userId}`);
      const changes: UserProfileChanges = {};
      if (command.changes.displayName !== undefined && command.changes.displayName !== state.displayName)
        changes.displayName = command.changes.displayName;
      if (command.changes.photoURL !== undefined && command.changes.photoURL !== state.photoURL)
        changes.photoURL = command.changes.photoURL;
      if (Object.keys(changes).length === 0) return [];
      return [{ type: 'UserUpdated', data: { userId: command.userId, changes, updatedAt: command.now } }];
    }
    if (state.exists) return DomainError.conflict(`user ${command.userId} already exists`);
    return [
      {
        type: 'UserCreated',
        data: {
          userId: command.userId,
          email: normalizeEmail(command.email),
          displayName: command.displayName,
          photoURL: command.photoURL,
          createdAt: command.now,
        },
      },
    ];
  },
};

// ---- e-mail claim -----------------------------------------------------------------------------

export interface EmailClaimState {
  holder: string | null;
}
export type EmailClaimCommand = { kind: 'ClaimEmail'; email: string; userId: string };

export const emailClaimDecider: Decider<EmailClaimCommand, Event<'EmailClaimed'>, EmailClaimState> = {
  initialState: () => ({ holder: null }),
  evolve: (_state, event) => ({ holder: event.data.userId }),
  decide(command, state) {
    if (state.holder === command.userId) return [];
    if (state.holder !== null) return DomainError.conflict(`a user with e-mail ${normalizeEmail(command.email)} already exists`);
    return [{ type: 'EmailClaimed', data: { email: normalizeEmail(command.email), userId: command.userId } }];
  },
};

// ---- access token -----------------------------------------------------------------------------

export interface TokenState {
  issued: { userId: string; tokenHash: string } | null;
  revoked: boolean;
}
export type TokenCommand =
  | { kind: 'IssueToken'; tokenId: string; userId: string; tokenHash: string; now: string }
  | { kind: 'RevokeToken'; tokenId: string; now: string };

export const tokenDecider: Decider<TokenCommand, Event<'AccessTokenIssued' | 'AccessTokenRevoked'>, TokenState> = {
  initialState: () => ({ issued: null, revoked: false }),
  evolve: (state, event) =>
    event.type === 'AccessTokenIssued'
      ? { issued: { userId: event.data.userId, tokenHash: event.data.tokenHash }, revoked: false }
      : { ...state, revoked: true },
  decide(command, state) {
    if (command.kind === 'IssueToken') {
      if (state.issued) return DomainError.conflict(`token ${command.tokenId} already exists`);
      return [
        {
          type: 'AccessTokenIssued',
          data: { tokenId: command.tokenId, userId: command.userId, tokenHash: command.tokenHash, issuedAt: command.now },
        },
      ];
    }
    if (!state.issued || state.revoked) return DomainError.notFound(`no token ${command.tokenId}`);
    return [
      {
        type: 'AccessTokenRevoked',
        data: { tokenId: command.tokenId, userId: state.issued.userId, tokenHash: state.issued.tokenHash, revokedAt: command.now },
      },
    ];
  },
};
