import { multiDocumentProjection, type ProjectedDoc, type Projection } from '#read-store/projections/projection';
import type { IdentityEvent } from './identity.events';

export const USERS = 'users';
/** Keyed by token hash: verifying a request is one point read. */
export const TOKENS = 'access_tokens';

export interface UserDoc extends ProjectedDoc {
  email: string;
  displayName: string;
  photoURL: string | null;
  createdAt: string;
  /** Revision of the user's stream: the ETag of `GET /v1/user`. */
  revision: number;
}

export interface TokenDoc extends ProjectedDoc {
  tokenId: string;
  userId: string;
  issuedAt: string;
}

/** Users and tokens, one document each. Writes are guarded by the event's log position. */
const projection = multiDocumentProjection<IdentityEvent>({
  name: 'identity',
  collections: [USERS, TOKENS],
  indexes: [{ collection: USERS, fields: { email: 1 }, unique: true }],
  handles: ['UserCreated', 'UserUpdated', 'AccessTokenIssued', 'AccessTokenRevoked'],
  async apply(event, documents) {
    switch (event.type) {
      case 'UserCreated': {
        const { userId, email, displayName, photoURL, createdAt } = event.data;
        await documents.collection<UserDoc>(USERS).put({ _id: userId, email, displayName, photoURL, createdAt, revision: event.revision });
        return;
      }
      case 'UserUpdated':
        await documents.collection<UserDoc>(USERS).update(event.data.userId, { $set: { ...event.data.changes, revision: event.revision } });
        return;
      case 'AccessTokenIssued': {
        const { tokenId, userId, tokenHash, issuedAt } = event.data;
        await documents.collection<TokenDoc>(TOKENS).put({ _id: tokenHash, tokenId, userId, issuedAt });
        return;
      }
      case 'AccessTokenRevoked':
        await documents.collection<TokenDoc>(TOKENS).delete(event.data.tokenHash);
        return;
    }
  },
});

/** Version 1: user documents carry their stream's revision (the ETag), so stored read models are rebuilt. */
export const identityProjection: Projection = { ...projection, version: 1 };
