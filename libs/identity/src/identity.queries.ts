import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import type { Versioned } from '#platform/http/etag';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { normalizeEmail } from '#platform/email';
import { TOKENS, USERS, type TokenDoc, type UserDoc } from './identity.projections';
import { byIds } from '#platform/by-ids';

/** The embedded user object. */
export interface UserObject {
  object: 'user';
  id: string;
  displayName: string;
  email: string;
  /** Absent when the user has no photo. */
  photoURL?: string;
  urls: { location: string };
}

/**
 * A user as every list of members, comments or requests embeds it; other contexts present users
 * through their ports, which identity's adapters answer with this. Member by member (a literal with
 * a conditional spread before more members takes V8's slow path on Node 20).
 */
export function presentUser(user: UserDoc, publicUrl: string): UserObject {
  const object = { object: 'user', id: user._id, displayName: user.displayName, email: user.email } as UserObject;
  if (user.photoURL) object.photoURL = user.photoURL;
  object.urls = { location: `${publicUrl}/v1/users/${user._id}` };
  return object;
}

/* The identity queries; other contexts read users through their ports, which identity's adapters answer with these. */

/** A user's document, or null. */
export class FindUser extends Query<UserDoc | null> {
  constructor(readonly userId: string) {
    super();
  }
}

@QueryHandler(FindUser)
export class FindUserHandler implements IQueryHandler<FindUser> {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  execute({ userId }: FindUser): Promise<UserDoc | null> {
    return this.reads.collection<UserDoc>(USERS).get(userId);
  }
}

/** The user with an e-mail address (compared normalized), or null. */
export class FindUserByEmail extends Query<UserDoc | null> {
  constructor(readonly email: string) {
    super();
  }
}

@QueryHandler(FindUserByEmail)
export class FindUserByEmailHandler implements IQueryHandler<FindUserByEmail> {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  execute({ email }: FindUserByEmail): Promise<UserDoc | null> {
    return this.reads.collection<UserDoc>(USERS).findOne({ email: normalizeEmail(email) });
  }
}

/** The users of `userIds` that exist, by id, in one read. */
export class FindUsers extends Query<Map<string, UserDoc>> {
  constructor(readonly userIds: readonly string[]) {
    super();
  }
}

@QueryHandler(FindUsers)
export class FindUsersHandler implements IQueryHandler<FindUsers> {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async execute({ userIds }: FindUsers): Promise<Map<string, UserDoc>> {
    const users = await byIds(this.reads.collection<UserDoc>(USERS), userIds);
    return new Map(users.map((user) => [user._id, user]));
  }
}

/**
 * `GET /v1/user` (and the user `POST /v1/admin/users` answers): the user and the revision of their
 * stream (the ETag), from one document; 404 for an unknown user.
 */
export class GetUser extends Query<Versioned<UserObject>> {
  constructor(readonly userId: string) {
    super();
  }
}

@QueryHandler(GetUser)
export class GetUserHandler implements IQueryHandler<GetUser> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async execute({ userId }: GetUser): Promise<Versioned<UserObject>> {
    const user = await this.reads.collection<UserDoc>(USERS).get(userId);
    if (!user) throw DomainError.notFound(`no user ${userId}`);
    return { object: presentUser(user, this.config.publicUrl), streamRevision: user.revision };
  }
}

/** Bearer token hash → caller, or null for an unknown or revoked token: two point reads (token by hash, then its user). For the front door's TOKEN_VERIFIER (ReadModelTokenVerifier). */
export class VerifyToken extends Query<Extract<Caller, { kind: 'user' }> | null> {
  constructor(readonly tokenHash: string) {
    super();
  }
}

@QueryHandler(VerifyToken)
export class VerifyTokenHandler implements IQueryHandler<VerifyToken> {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async execute({ tokenHash }: VerifyToken): Promise<Extract<Caller, { kind: 'user' }> | null> {
    const token = await this.reads.collection<TokenDoc>(TOKENS).get(tokenHash);
    if (!token) return null;
    const user = await this.reads.collection<UserDoc>(USERS).get(token.userId);
    if (!user) return null;
    return {
      kind: 'user' as const,
      userId: user._id,
      tokenId: token.tokenId,
      user: { id: user._id, displayName: user.displayName, email: user.email, photoURL: user.photoURL },
    };
  }
}

export const identityQueryHandlers = [FindUserHandler, FindUserByEmailHandler, FindUsersHandler, GetUserHandler, VerifyTokenHandler];
