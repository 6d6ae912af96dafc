/**
 * Everything the identity context provides to others: the front door's token verifier and its
 * implementations of ports other contexts declare (organizations, teams, change requests, comments,
 * integrations, sso), matched structurally so that the consumer does not import this context; the
 * composition root binds them. Each method dispatches one of the context's queries or commands (the
 * User object is presented synchronously, from the public URL in APP_CONFIG).
 */
import { Inject, Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import type { Caller, TokenVerifier } from '#platform/http/auth';
import { CreateUser, IssueToken } from './identity.commands';
import type { UserDoc } from './identity.projections';
import { FindUser, FindUserByEmail, FindUsers, presentUser, VerifyToken, type UserObject } from './identity.queries';

/** Bearer token → caller, for the front door (the TOKEN_VERIFIER port of libs/platform/src/http/auth.ts). */
@Injectable()
export class ReadModelTokenVerifier implements TokenVerifier {
  constructor(private readonly queryBus: QueryBus) {}

  verify(tokenHash: string): Promise<Extract<Caller, { kind: 'user' }> | null> {
    return this.queryBus.execute(new VerifyToken(tokenHash));
  }
}

/** What identity offers the organizations context (its ORGANIZATION_USERS port). */
@Injectable()
export class UsersForOrganizations {
  constructor(
    private readonly queryBus: QueryBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  byId(userId: string): Promise<UserDoc | null> {
    return this.queryBus.execute(new FindUser(userId));
  }

  byIds(userIds: readonly string[]): Promise<Map<string, UserDoc>> {
    return this.queryBus.execute(new FindUsers(userIds));
  }

  /** The users it presents are the ones it found (UserDoc). */
  present(user: { _id: string }): UserObject {
    return presentUser(user as UserDoc, this.config.publicUrl);
  }
}

/** What identity offers change requests (their CHANGE_REQUEST_USERS port): the users a request names, presented. */
@Injectable()
export class UsersForChangeRequests extends UsersForOrganizations {}

/** What identity offers comments (their COMMENT_USERS port): users mentioned and shown, presented. */
@Injectable()
export class UsersForComments extends UsersForOrganizations {}

/** What identity offers integrations (their INTEGRATION_USERS port): the users integration events name, presented. */
@Injectable()
export class UsersForIntegrations extends UsersForOrganizations {}

/** What identity offers the teams context (its TEAM_USERS port): who the entries of a team change name. */
@Injectable()
export class UsersForTeams {
  constructor(private readonly queryBus: QueryBus) {}

  byIds(userIds: readonly string[]): Promise<Map<string, UserDoc>> {
    return this.queryBus.execute(new FindUsers(userIds));
  }

  byEmail(email: string): Promise<UserDoc | null> {
    return this.queryBus.execute(new FindUserByEmail(email));
  }
}

/** What identity offers the SAML login (the sso context's SSO_USERS port). */
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
