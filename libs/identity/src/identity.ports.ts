/**
 * The identity context's implementations of ports other contexts declare (organizations, teams),
 * matched structurally so that the consumer does not import this context; the composition root
 * binds them. (UsersForSso, for the sso context, is in identity.sso.ts.)
 */
import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { APP_CONFIG, type AppConfig } from '../../platform/src/config';
import type { UserDoc } from './identity.projections';
import { FindUser, FindUserByEmail, FindUsers, presentUser, type UserObject } from './identity.queries';

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
