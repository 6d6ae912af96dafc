import type { RecordedEvent } from '../../event-store/src/event-store.port';
import type { Projection } from '../../read-store/src/projections/projection';
import type { Doc } from '../../read-store/src/read-store.port';
import type { IdentityEvent } from './identity.events';

export const USERS = 'users';
/** Keyed by token hash: verifying a request is one point read. */
export const TOKENS = 'access_tokens';

export interface UserDoc extends Doc {
  email: string;
  displayName: string;
  photoURL: string | null;
  createdAt: string;
}

export interface TokenDoc extends Doc {
  tokenId: string;
  userId: string;
  issuedAt: string;
}

export const identityProjection: Projection = {
  name: 'identity',
  collections: [USERS, TOKENS],
  indexes: [{ collection: USERS, fields: { email: 1 }, unique: true }],
  handles: ['UserCreated', 'AccessTokenIssued', 'AccessTokenRevoked'],
  async apply(recorded: RecordedEvent, tx) {
    const event = recorded as unknown as IdentityEvent;
    switch (event.type) {
      case 'UserCreated': {
        const { userId, email, displayName, photoURL, createdAt } = event.data;
        await tx.collection<UserDoc>(USERS).put({ _id: userId, email, displayName, photoURL, createdAt });
        return;
      }
      case 'AccessTokenIssued': {
        const { tokenId, userId, tokenHash, issuedAt } = event.data;
        await tx.collection<TokenDoc>(TOKENS).put({ _id: tokenHash, tokenId, userId, issuedAt });
        return;
      }
      case 'AccessTokenRevoked':
        await tx.collection(TOKENS).delete(event.data.tokenHash);
        return;
    }
  },
};
