import { Inject } from '@nestjs/common';
import { Command, CommandHandler } from '@nestjs/cqrs';
import { DomainError } from '#platform/errors';
import { newId, newSecret } from '#platform/ids';
import { hashToken, type Caller } from '#platform/http/auth';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { DecidingHandler } from '#runtime/command-handler';
import { emailClaimDecider, emailClaimStream, tokenDecider, tokenStream, userDecider, userStream } from './identity.decider';
import type { UserProfileChanges } from './identity.events';
import { USERS, type UserDoc } from './identity.projections';

/*
 * The identity commands: users and their tokens. `CreateUser` and `IssueToken` are also dispatched
 * by the port adapter the sso context uses, since a SAML login creates users and issues their tokens
 * as the service.
 */

/** `POST /v1/admin/users`: claims the address first, so a second user with it fails there, before any user stream exists. Answers the new user's id. */
export class CreateUser extends Command<string> {
  constructor(
    readonly email: string,
    readonly displayName: string,
    readonly photoURL: string | null,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(CreateUser)
export class CreateUserHandler extends DecidingHandler {
  async execute({ email, displayName, photoURL, caller }: CreateUser): Promise<string> {
    const userId = newId();
    await this.decide(emailClaimStream(email), emailClaimDecider, { kind: 'ClaimEmail', email, userId }, { caller, wait: false });
    await this.decide(
      userStream(userId),
      userDecider,
      { kind: 'CreateUser', userId, email, displayName, photoURL, now: this.now() },
      { caller },
    );
    return userId;
  }
}

/** `PATCH /v1/user`: the caller's own display name and photo; `ifMatch` is the revision of their stream (the ETag of `GET /v1/user`). */
export class UpdateUserProfile extends Command<void> {
  constructor(
    readonly userId: string,
    readonly changes: UserProfileChanges,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(UpdateUserProfile)
export class UpdateUserProfileHandler extends DecidingHandler {
  async execute({ userId, changes, caller, ifMatch }: UpdateUserProfile): Promise<void> {
    await this.decide(
      userStream(userId),
      userDecider,
      { kind: 'UpdateUserProfile', userId, changes, now: this.now() },
      { caller, ifMatch },
    );
  }
}

/**
 * `POST /v1/admin/users/{userId}/tokens`: a new bearer token for the user (404 for an unknown user).
 * Only its hash is recorded, so the answer is the one place it appears.
 */
export class IssueToken extends Command<{ tokenId: string; token: string }> {
  constructor(
    readonly userId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(IssueToken)
export class IssueTokenHandler extends DecidingHandler {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {
    super();
  }

  async execute({ userId, caller }: IssueToken): Promise<{ tokenId: string; token: string }> {
    if (!(await this.reads.collection<UserDoc>(USERS).get(userId))) throw DomainError.notFound(`no user ${userId}`);
    const tokenId = newId();
    const token = newSecret('dpt');
    await this.decide(
      tokenStream(tokenId),
      tokenDecider,
      { kind: 'IssueToken', tokenId, userId, tokenHash: hashToken(token), now: this.now() },
      { caller },
    );
    return { tokenId, token };
  }
}

/** `DELETE /v1/admin/tokens/{tokenId}`: the token stops working at once. */
export class RevokeToken extends Command<void> {
  constructor(
    readonly tokenId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(RevokeToken)
export class RevokeTokenHandler extends DecidingHandler {
  async execute({ tokenId, caller }: RevokeToken): Promise<void> {
    await this.decide(tokenStream(tokenId), tokenDecider, { kind: 'RevokeToken', tokenId, now: this.now() }, { caller });
  }
}

export const identityCommandHandlers = [CreateUserHandler, UpdateUserProfileHandler, IssueTokenHandler, RevokeTokenHandler];
