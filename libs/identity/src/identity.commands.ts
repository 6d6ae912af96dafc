import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DomainError } from '../../platform/src/errors';
import { newId, newSecret } from '../../platform/src/ids';
import { hashToken, type Caller } from '../../platform/src/http/auth';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { emailClaimDecider, emailClaimStream, tokenDecider, tokenStream, userDecider, userStream } from './identity.decider';
import { UserQueries } from './identity.queries';

export class CreateUser {
  constructor(readonly email: string, readonly displayName: string, readonly photoURL: string | null, readonly caller: Caller) {}
}
export class IssueToken {
  constructor(readonly userId: string, readonly caller: Caller) {}
}
export class RevokeToken {
  constructor(readonly tokenId: string, readonly caller: Caller) {}
}

@CommandHandler(CreateUser)
export class CreateUserHandler implements ICommandHandler<CreateUser, { userId: string }> {
  constructor(@Inject(COMMAND_RUNNER) private readonly commands: CommandRunner) {}

  /** Claims the address first: a second user with it fails there, before any user stream exists. */
  async execute({ email, displayName, photoURL, caller }: CreateUser): Promise<{ userId: string }> {
    const userId = newId();
    const context = { caller };
    await this.commands.run(emailClaimStream(email), emailClaimDecider, { kind: 'ClaimEmail', email, userId }, context, { wait: false });
    const now = this.commands.now().toISOString();
    await this.commands.run(userStream(userId), userDecider, { kind: 'CreateUser', userId, email, displayName, photoURL, now }, context);
    return { userId };
  }
}

@CommandHandler(IssueToken)
export class IssueTokenHandler implements ICommandHandler<IssueToken, { tokenId: string; token: string }> {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    private readonly users: UserQueries,
  ) {}

  async execute({ userId, caller }: IssueToken): Promise<{ tokenId: string; token: string }> {
    if (!(await this.users.byId(userId))) throw DomainError.notFound(`no user ${userId}`);
    const tokenId = newId();
    const token = newSecret('dpt');
    const now = this.commands.now().toISOString();
    await this.commands.run(tokenStream(tokenId), tokenDecider, { kind: 'IssueToken', tokenId, userId, tokenHash: hashToken(token), now }, { caller });
    return { tokenId, token };
  }
}

@CommandHandler(RevokeToken)
export class RevokeTokenHandler implements ICommandHandler<RevokeToken, void> {
  constructor(@Inject(COMMAND_RUNNER) private readonly commands: CommandRunner) {}

  async execute({ tokenId, caller }: RevokeToken): Promise<void> {
    await this.commands.run(tokenStream(tokenId), tokenDecider, { kind: 'RevokeToken', tokenId, now: this.commands.now().toISOString() }, { caller });
  }
}

