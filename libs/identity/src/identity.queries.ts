import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../platform/src/config';
import { DomainError } from '../../platform/src/errors';
import type { TokenVerifier } from '../../platform/src/http/auth';
import type { Versioned } from '../../platform/src/http/etag';
import { READ_STORE, type ReadStore } from '../../read-store/src/read-store.port';
import { normalizeEmail } from '../../platform/src/email';
import { TOKENS, USERS, type TokenDoc, type UserDoc } from './identity.projections';
import { byIds } from '../../platform/src/by-ids';

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

/** The identity queries; other contexts read users through their ports, which identity's adapters answer with these. */
@Injectable()
export class UserQueries {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  byId(userId: string): Promise<UserDoc | null> {
    return this.reads.collection<UserDoc>(USERS).get(userId);
  }

  byEmail(email: string): Promise<UserDoc | null> {
    return this.reads.collection<UserDoc>(USERS).findOne({ email: normalizeEmail(email) });
  }

  async byIds(userIds: readonly string[]): Promise<Map<string, UserDoc>> {
    const users = await byIds(this.reads.collection<UserDoc>(USERS), userIds);
    return new Map(users.map((user) => [user._id, user]));
  }

  /** The user of `POST /v1/admin/users`: 404 for an unknown user. */
  async get(userId: string): Promise<UserObject> {
    return (await this.getVersioned(userId)).object;
  }

  /** `GET /v1/user`: the user and the revision of their stream (the ETag), from one document. */
  async getVersioned(userId: string): Promise<Versioned<UserObject>> {
    const user = await this.byId(userId);
    if (!user) throw DomainError.notFound(`no user ${userId}`);
    return { object: this.present(user), streamRevision: user.revision };
  }

  /** Member by member: every list of members, comments or requests presents its users (a literal with a conditional spread before more members takes V8's slow path on Node 20). */
  present(user: UserDoc): UserObject {
    const object = { object: 'user', id: user._id, displayName: user.displayName, email: user.email } as UserObject;
    if (user.photoURL) object.photoURL = user.photoURL;
    object.urls = { location: `${this.config.publicUrl}/v1/users/${user._id}` };
    return object;
  }
}

/** Bearer token → caller: two point reads (token by hash, then its user). */
@Injectable()
export class ReadModelTokenVerifier implements TokenVerifier {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async verify(tokenHash: string) {
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

