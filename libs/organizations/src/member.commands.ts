import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DomainError } from '../../platform/src/errors';
import { newId } from '../../platform/src/ids';
import { userOf, type Caller } from '../../platform/src/http/auth';
import type { OrganizationRole } from '../../platform/src/permissions';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { RemoveUserFromAllTeams } from '../../teams/src/team.commands';
import { memberSeenDecider, memberSeenStream, organizationDecider, organizationStream, requireAdmin, type ProposedInvitation } from './organization.decider';

export interface Invitation {
  email: string;
  role?: OrganizationRole;
}

export class InviteMembers {
  constructor(
    readonly organizationId: string,
    readonly invitations: Invitation[],
    readonly role: OrganizationRole | undefined,
    readonly sso: boolean,
    readonly caller: Caller,
  ) {}
}

/**
 * `POST /v1/orgs/{organizationId}/invites`: admins invite people by e-mail. Each address gets a
 * pending invitation (its pending one is refreshed), and nobody joins until they accept it. No
 * account is looked up or created: the answer, one invitation id per address, reads the same
 * whether an address has an account, is a member already or was invited before, so it tells the
 * admin nothing about other people. The role is the invitation's own, else the request's, else the
 * organization's default role, else `read`.
 */
@CommandHandler(InviteMembers)
export class InviteMembersHandler implements ICommandHandler<InviteMembers, { invites: string[]; invited: number }> {
  constructor(@Inject(COMMAND_RUNNER) private readonly commands: CommandRunner) {}

  async execute({ organizationId, invitations, role, sso, caller }: InviteMembers) {
    const byUserId = userOf(caller).userId;
    const stream = organizationStream(organizationId);
    const { state } = await this.commands.load(stream, organizationDecider);
    const denied = requireAdmin(state, organizationId, byUserId);
    if (denied) throw denied;
    const fallback: OrganizationRole = role !== undefined ? role : (state.fields.defaultRole ?? 'read');
    const proposed: ProposedInvitation[] = invitations.map((invitation) => ({
      invitationId: newId(),
      email: invitation.email,
      role: invitation.role !== undefined ? invitation.role : fallback,
    }));
    const now = this.commands.now().toISOString();
    const outcome = await this.commands.run(stream, organizationDecider, { kind: 'InviteByEmail', organizationId, invitations: proposed, sso, byUserId, now }, { caller });
    const invites = outcome.events.flatMap((event) => (event.type === 'MemberInvited' ? [event.data.invitationId] : []));
    return { invites, invited: invites.length };
  }
}

export class AnswerInvitation {
  constructor(
    readonly organizationId: string,
    readonly invitationId: string,
    readonly answer: 'accept' | 'decline',
    readonly caller: Caller,
  ) {}
}

/** `POST|DELETE /v1/user/invites/{inviteId}`: the invitee accepts (joins) or declines; anyone else gets 404. */
@CommandHandler(AnswerInvitation)
export class AnswerInvitationHandler implements ICommandHandler<AnswerInvitation, void> {
  constructor(@Inject(COMMAND_RUNNER) private readonly commands: CommandRunner) {}

  async execute({ organizationId, invitationId, answer, caller }: AnswerInvitation): Promise<void> {
    const { userId, user } = userOf(caller);
    const now = this.commands.now().toISOString();
    const kind = answer === 'accept' ? 'AcceptInvitation' : 'DeclineInvitation';
    await this.commands.run(organizationStream(organizationId), organizationDecider, { kind, organizationId, invitationId, userId, email: user.email, now }, { caller });
  }
}

export class RevokeInvitation {
  constructor(readonly organizationId: string, readonly invitationId: string, readonly caller: Caller) {}
}

@CommandHandler(RevokeInvitation)
export class RevokeInvitationHandler implements ICommandHandler<RevokeInvitation, void> {
  constructor(@Inject(COMMAND_RUNNER) private readonly commands: CommandRunner) {}

  async execute({ organizationId, invitationId, caller }: RevokeInvitation): Promise<void> {
    const byUserId = userOf(caller).userId;
    const now = this.commands.now().toISOString();
    await this.commands.run(organizationStream(organizationId), organizationDecider, { kind: 'RevokeInvitation', organizationId, invitationId, byUserId, now }, { caller });
  }
}

export class JoinByLink {
  constructor(readonly organizationId: string, readonly inviteId: string, readonly caller: Caller) {}
}

@CommandHandler(JoinByLink)
export class JoinByLinkHandler implements ICommandHandler<JoinByLink, void> {
  constructor(@Inject(COMMAND_RUNNER) private readonly commands: CommandRunner) {}

  async execute({ organizationId, inviteId, caller }: JoinByLink): Promise<void> {
    const userId = userOf(caller).userId;
    const now = this.commands.now().toISOString();
    await this.commands.run(organizationStream(organizationId), organizationDecider, { kind: 'JoinByLink', organizationId, inviteId, userId, now }, { caller });
  }
}

export class JoinBySso {
  constructor(readonly organizationId: string, readonly userId: string, readonly role: OrganizationRole, readonly caller: Caller) {}
}

/** Used by the SSO context after a verified SAML login: joins the user as an SSO member (or marks them as one). */
@CommandHandler(JoinBySso)
export class JoinBySsoHandler implements ICommandHandler<JoinBySso, void> {
  constructor(@Inject(COMMAND_RUNNER) private readonly commands: CommandRunner) {}

  async execute({ organizationId, userId, role, caller }: JoinBySso): Promise<void> {
    const now = this.commands.now().toISOString();
    await this.commands.run(organizationStream(organizationId), organizationDecider, { kind: 'JoinBySso', organizationId, userId, role, now }, { caller });
  }
}

export class ChangeMemberRole {
  constructor(readonly organizationId: string, readonly userId: string, readonly role: OrganizationRole, readonly caller: Caller) {}
}

@CommandHandler(ChangeMemberRole)
export class ChangeMemberRoleHandler implements ICommandHandler<ChangeMemberRole, void> {
  constructor(@Inject(COMMAND_RUNNER) private readonly commands: CommandRunner) {}

  async execute({ organizationId, userId, role, caller }: ChangeMemberRole): Promise<void> {
    const byUserId = userOf(caller).userId;
    await this.commands.run(organizationStream(organizationId), organizationDecider, { kind: 'ChangeMemberRole', organizationId, userId, role, byUserId }, { caller });
  }
}

export class RemoveMember {
  constructor(readonly organizationId: string, readonly userId: string, readonly caller: Caller) {}
}

/** Removes the member, then takes them out of every team of the organization so the team streams agree. */
@CommandHandler(RemoveMember)
export class RemoveMemberHandler implements ICommandHandler<RemoveMember, void> {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    private readonly commandBus: CommandBus,
  ) {}

  async execute({ organizationId, userId, caller }: RemoveMember): Promise<void> {
    const byUserId = userOf(caller).userId;
    const outcome = await this.commands.run(organizationStream(organizationId), organizationDecider, { kind: 'RemoveMember', organizationId, userId, byUserId }, { caller });
    if (outcome.events.length > 0) await this.commandBus.execute(new RemoveUserFromAllTeams(organizationId, userId, caller));
  }
}

export class EnableMemberSso {
  constructor(readonly organizationId: string, readonly userId: string, readonly caller: Caller) {}
}

@CommandHandler(EnableMemberSso)
export class EnableMemberSsoHandler implements ICommandHandler<EnableMemberSso, void> {
  constructor(@Inject(COMMAND_RUNNER) private readonly commands: CommandRunner) {}

  async execute({ organizationId, userId, caller }: EnableMemberSso): Promise<void> {
    const byUserId = userOf(caller).userId;
    await this.commands.run(organizationStream(organizationId), organizationDecider, { kind: 'EnableMemberSso', organizationId, userId, byUserId }, { caller });
  }
}

export class CreateLinkInvite {
  constructor(readonly organizationId: string, readonly role: OrganizationRole, readonly caller: Caller) {}
}

@CommandHandler(CreateLinkInvite)
export class CreateLinkInviteHandler implements ICommandHandler<CreateLinkInvite, { inviteId: string }> {
  constructor(@Inject(COMMAND_RUNNER) private readonly commands: CommandRunner) {}

  async execute({ organizationId, role, caller }: CreateLinkInvite) {
    const inviteId = newId();
    const byUserId = userOf(caller).userId;
    const now = this.commands.now().toISOString();
    await this.commands.run(organizationStream(organizationId), organizationDecider, { kind: 'CreateLinkInvite', organizationId, inviteId, role, byUserId, now }, { caller });
    return { inviteId };
  }
}

export class DeleteLinkInvite {
  constructor(readonly organizationId: string, readonly inviteId: string, readonly caller: Caller) {}
}

@CommandHandler(DeleteLinkInvite)
export class DeleteLinkInviteHandler implements ICommandHandler<DeleteLinkInvite, void> {
  constructor(@Inject(COMMAND_RUNNER) private readonly commands: CommandRunner) {}

  async execute({ organizationId, inviteId, caller }: DeleteLinkInvite): Promise<void> {
    const byUserId = userOf(caller).userId;
    await this.commands.run(organizationStream(organizationId), organizationDecider, { kind: 'DeleteLinkInvite', organizationId, inviteId, byUserId }, { caller });
  }
}

export class RecordMemberSeen {
  constructor(readonly organizationId: string, readonly caller: Caller) {}
}

/** `POST /ping`: members only; at most one MemberSeen per member per minute reaches the log. */
@CommandHandler(RecordMemberSeen)
export class RecordMemberSeenHandler implements ICommandHandler<RecordMemberSeen, void> {
  constructor(@Inject(COMMAND_RUNNER) private readonly commands: CommandRunner) {}

  async execute({ organizationId, caller }: RecordMemberSeen): Promise<void> {
    const userId = userOf(caller).userId;
    const { state } = await this.commands.load(organizationStream(organizationId), organizationDecider);
    if (!state.exists || !state.members.has(userId)) throw DomainError.notFound(`no organization ${organizationId}`);
    const now = this.commands.now().toISOString();
    await this.commands.run(memberSeenStream(organizationId, userId), memberSeenDecider, { kind: 'RecordSeen', organizationId, userId, now }, { caller });
  }
}
