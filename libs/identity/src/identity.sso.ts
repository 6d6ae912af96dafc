import { Inject, Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { APP_CONFIG, type AppConfig } from '../../platform/src/config';
import type { Caller } from '../../platform/src/http/auth';
import { CreateUser, IssueToken } from './identity.commands';
import type { UserDoc } from './identity.projections';
import { FindUser, FindUserByEmail, presentUser, type UserObject } from './identity.queries';

/** What identity offers the SAML login (the sso context's SSO_USERS port, bound at the composition root). */
@Injectable()
export class UsersForSso {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  byEmail(email: string): Promise<UserDoc | null> {
    return this.queryBus.execute(new FindUserByEmail(email));
  }

  byId(userId: string): Promise<UserDoc | null> {
    return this.queryBus.execute(new FindUser(userId));
  }

  /** The users it presents are the ones it found (UserDoc). */
  present(user: { _id: string }): UserObject {
    return presentUser(user as UserDoc, this.config.publicUrl);
  }

  createUser(email: string, displayName: string, photoURL: string | null, caller: Caller): Promise<string> {
    return this.commandBus.execute(new CreateUser(email, displayName, photoURL, caller));
  }

  issueToken(userId: string, caller: Caller): Promise<{ tokenId: string; token: string }> {
    return this.commandBus.execute(new IssueToken(userId, caller));
  }
}
