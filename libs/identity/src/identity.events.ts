/**
 * Identity: users and their access tokens.
 *
 * Streams:
 * - `user-<userId>`: the user;
 * - `emailclaim-<sha256(email)>`: who holds an e-mail address, so that two users can never be
 *   created with the same address, even concurrently (the claim is appended with `no_stream`);
 * - `accesstoken-<tokenId>`: one token's life. Only the SHA-256 of a token is ever stored.
 */
export type IdentityEvent =
  | { type: 'UserCreated'; data: { userId: string; email: string; displayName: string; photoURL: string | null; createdAt: string } }
  /** The user changed their profile (`PATCH /v1/user`); absent members are unchanged. */
  | { type: 'UserUpdated'; data: { userId: string; changes: UserProfileChanges; updatedAt: string } }
  | { type: 'EmailClaimed'; data: { email: string; userId: string } }
  | { type: 'AccessTokenIssued'; data: { tokenId: string; userId: string; tokenHash: string; issuedAt: string } }
  | { type: 'AccessTokenRevoked'; data: { tokenId: string; userId: string; tokenHash: string; revokedAt: string } };

/** What a profile update may change. The address is not here: it is claimed through its own stream. */
export interface UserProfileChanges {
  displayName?: string;
  photoURL?: string | null;
}

export const IDENTITY_EVENT_TYPES = ['UserCreated', 'UserUpdated', 'EmailClaimed', 'AccessTokenIssued', 'AccessTokenRevoked'] as const;
