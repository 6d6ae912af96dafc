import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../../platform/src/errors';
import { newId, newSecret } from '../../platform/src/ids';
import { hashToken, type Caller } from '../../platform/src/http/auth';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { emailClaimDecider, emailClaimStream, tokenDecider, tokenStream, userDecider, userStream } from './identity.decider';
import type { UserProfileChanges } from './identity.events';
import { UserQueries } from './identity.queries';

/**
 * The identity commands: users and their tokens. Exported, since a SAML login creates users and
 * issues their tokens as the service.
 */
@Injectable()
export class IdentityCommands {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    private readonly users: UserQueries,
  ) {}

  private now(): string {
    return this.commands.now().toISOString();
  }

  /** Claims the address first: a second user with it fails there, before any user stream exists. */
  async createUser(email: string, displayName: string, photoURL: string | null, caller: Caller): Promise<string> {
    const userId = newId();
    const context = { caller };
    await this.commands.run(emailClaimStream(email), emailClaimDecider, { kind: 'ClaimEmail', email, userId }, context, { wait: false });
    await this.commands.run(userStream(userId), userDecider, { kind: 'CreateUser', userId, email, displayName, photoURL, now: this.now() }, context);
    return userId;
  }

  /** `PATCH /v1/user`: the caller's own display name and photo; `ifMatch` is the revision of their stream (the ETag of `GET /v1/user`). */
  async updateProfile(userId: string, changes: UserProfileChanges, caller: Caller, ifMatch?: number): Promise<void> {
    await this.commands.run(userStream(userId), userDecider, { kind: 'UpdateUserProfile', userId, changes, now: this.now() }, { caller }, { ifMatch });
  }

  /** A new bearer token for the user: only its hash is recorded, so the answer is the one place it appears. */
  async issueToken(userId: string, caller: Caller): Promise<{ tokenId: string; token: string }> {
    if (!(await this.users.byId(userId))) throw DomainError.notFound(`no user ${userId}`);
    const tokenId = newId();
    const token = newSecret('dpt');
    await this.commands.run(tokenStream(tokenId), tokenDecider, { kind: 'IssueToken', tokenId, userId, tokenHash: hashToken(token), now: this.now() }, { caller });
    return { tokenId, token };
  }

  async revokeToken(tokenId: string, caller: Caller): Promise<void> {
    await this.commands.run(tokenStream(tokenId), tokenDecider, { kind: 'RevokeToken', tokenId, now: this.now() }, { caller });
  }
}
