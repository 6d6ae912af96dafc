import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../../platform/src/errors';
import { newId } from '../../platform/src/ids';
import { userOf, type Caller } from '../../platform/src/http/auth';
import type { OrganizationRole } from '../../platform/src/permissions';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { accessRefusal, memberSeenDecider, memberSeenStream, organizationDecider, organizationStream, requireAdmin, type OrganizationCommand, type ProposedInvitation } from './organization.decider';
import { InvitationLocator } from './member.queries';

export interface Invitation {
  email: string;
  role?: OrganizationRole;
}

/**
 * The member commands: invitations, link invites, roles, removal, SSO membership and presence,
 * each decided by the organization stream. Exported, since a SAML login joins people as SSO members.
 */
@Injectable()
export class MemberCommands {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    private readonly invitations: InvitationLocator,
  ) {}

  private now(): string {
    return this.commands.now().toISOString();
  }

  /**
   * Members, invitations and link invites live in the organization's stream: `ifMatch` is its
   * revision, the ETag of the organization and of each of its members and link invites. Whoever may
   * not make the change is refused (404, 403) before the revision is compared, so a 412 tells them
   * nothing about the organization (`accessRefusal`).
   */
  private async run(organizationId: string, command: OrganizationCommand, caller: Caller, ifMatch?: number) {
    const stream = organizationStream(organizationId);
    if (ifMatch !== undefined) {
      const refusal = accessRefusal(command, (await this.commands.load(stream, organizationDecider)).state);
      if (refusal) throw refusal;
    }
    return this.commands.run(stream, organizationDecider, command, { caller }, { ifMatch });
  }

  /**
   * `POST /v1/orgs/{organizationId}/invites`: admins invite people by e-mail. Each address gets a
   * pending invitation (its pending one is refreshed), and nobody joins until they accept it. No
   * account is looked up or created: the answer, one invitation id per address, reads the same
   * whether an address has an account, is a member already or was invited before, so it tells the
   * admin nothing about other people. The role is the invitation's own, else the request's, else the
   * organization's default role, else `read`.
   */
  async invite(organizationId: string, invitations: Invitation[], role: OrganizationRole | undefined, sso: boolean, caller: Caller): Promise<{ invites: string[]; invited: number }> {
    const byUserId = userOf(caller).userId;
    const { state } = await this.commands.load(organizationStream(organizationId), organizationDecider);
    const denied = requireAdmin(state, organizationId, byUserId);
    if (denied) throw denied;
    const fallback: OrganizationRole = role !== undefined ? role : (state.fields.defaultRole ?? 'read');
    const proposed: ProposedInvitation[] = invitations.map((invitation) => ({
      invitationId: newId(),
      email: invitation.email,
      role: invitation.role !== undefined ? invitation.role : fallback,
    }));
    const outcome = await this.run(organizationId, { kind: 'InviteByEmail', organizationId, invitations: proposed, sso, byUserId, now: this.now() }, caller);
    const invites = outcome.events.flatMap((event) => (event.type === 'MemberInvited' ? [event.data.invitationId] : []));
    return { invites, invited: invites.length };
  }

  /** `POST /v1/user/invites/{inviteId}`: the invitee joins with the invited role; anyone else gets 404. Answers the organization joined. */
  async acceptInvitation(invitationId: string, caller: Caller): Promise<string> {
    return this.answerInvitation(invitationId, 'AcceptInvitation', caller);
  }

  /** `DELETE /v1/user/invites/{inviteId}`: the invitee declines; anyone else gets 404. */
  async declineInvitation(invitationId: string, caller: Caller): Promise<void> {
    await this.answerInvitation(invitationId, 'DeclineInvitation', caller);
  }

  private async answerInvitation(invitationId: string, kind: 'AcceptInvitation' | 'DeclineInvitation', caller: Caller): Promise<string> {
    const organizationId = await this.invitations.organizationOf(invitationId, caller);
    const { userId, user } = userOf(caller);
    await this.run(organizationId, { kind, organizationId, invitationId, userId, email: user.email, now: this.now() }, caller);
    return organizationId;
  }

  async revokeInvitation(organizationId: string, invitationId: string, caller: Caller, ifMatch?: number): Promise<void> {
    const byUserId = userOf(caller).userId;
    await this.run(organizationId, { kind: 'RevokeInvitation', organizationId, invitationId, byUserId, now: this.now() }, caller, ifMatch);
  }

  async joinByLink(organizationId: string, inviteId: string, caller: Caller): Promise<void> {
    const userId = userOf(caller).userId;
    await this.run(organizationId, { kind: 'JoinByLink', organizationId, inviteId, userId, now: this.now() }, caller);
  }

  /** For the SSO context after a verified SAML login: joins the user as an SSO member (or marks them as one). */
  async joinBySso(organizationId: string, userId: string, role: OrganizationRole, caller: Caller): Promise<void> {
    await this.run(organizationId, { kind: 'JoinBySso', organizationId, userId, role, now: this.now() }, caller);
  }

  async changeRole(organizationId: string, userId: string, role: OrganizationRole, caller: Caller, ifMatch?: number): Promise<void> {
    const byUserId = userOf(caller).userId;
    await this.run(organizationId, { kind: 'ChangeMemberRole', organizationId, userId, role, byUserId }, caller, ifMatch);
  }

  /** The organization side only: taking the member out of its teams follows from their `MemberRemoved` in the teams context. */
  async remove(organizationId: string, userId: string, caller: Caller, ifMatch?: number): Promise<void> {
    const byUserId = userOf(caller).userId;
    await this.run(organizationId, { kind: 'RemoveMember', organizationId, userId, byUserId }, caller, ifMatch);
  }

  async enableSso(organizationId: string, userId: string, caller: Caller, ifMatch?: number): Promise<void> {
    const byUserId = userOf(caller).userId;
    await this.run(organizationId, { kind: 'EnableMemberSso', organizationId, userId, byUserId }, caller, ifMatch);
  }

  async createLinkInvite(organizationId: string, role: OrganizationRole, caller: Caller): Promise<string> {
    const inviteId = newId();
    const byUserId = userOf(caller).userId;
    await this.run(organizationId, { kind: 'CreateLinkInvite', organizationId, inviteId, role, byUserId, now: this.now() }, caller);
    return inviteId;
  }

  async deleteLinkInvite(organizationId: string, inviteId: string, caller: Caller, ifMatch?: number): Promise<void> {
    const byUserId = userOf(caller).userId;
    await this.run(organizationId, { kind: 'DeleteLinkInvite', organizationId, inviteId, byUserId }, caller, ifMatch);
  }

  /** `POST /ping`: members only; at most one MemberSeen per member per minute reaches the log. */
  async recordSeen(organizationId: string, caller: Caller): Promise<void> {
    const userId = userOf(caller).userId;
    const { state } = await this.commands.load(organizationStream(organizationId), organizationDecider);
    if (!state.exists || !state.members.has(userId)) throw DomainError.notFound(`no organization ${organizationId}`);
    await this.commands.run(memberSeenStream(organizationId, userId), memberSeenDecider, { kind: 'RecordSeen', organizationId, userId, now: this.now() }, { caller });
  }
}
