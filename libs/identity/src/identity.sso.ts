import { Injectable } from '@nestjs/common';
import type { Caller } from '../../platform/src/http/auth';
import { IdentityCommands } from './identity.commands';
import type { UserDoc } from './identity.projections';
import { UserQueries, type UserObject } from './identity.queries';

/** What identity offers the SAML login (the sso context's SSO_USERS port, bound at the composition root). */
@Injectable()
export class UsersForSso {
  constructor(
    private readonly users: UserQueries,
    private readonly identity: IdentityCommands,
  ) {}

  byEmail(email: string): Promise<UserDoc | null> {
    return this.users.byEmail(email);
  }

  byId(userId: string): Promise<UserDoc | null> {
    return this.users.byId(userId);
  }

  /** The users it presents are the ones it found (UserDoc). */
  present(user: { _id: string }): UserObject {
    return this.users.present(user as UserDoc);
  }

  createUser(email: string, displayName: string, photoURL: string | null, caller: Caller): Promise<string> {
    return this.identity.createUser(email, displayName, photoURL, caller);
  }

  issueToken(userId: string, caller: Caller): Promise<{ tokenId: string; token: string }> {
    return this.identity.issueToken(userId, caller);
  }
}
