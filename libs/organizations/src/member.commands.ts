import { Command, CommandHandler } from '@nestjs/cqrs';
import { DomainError } from '#platform/errors';
import { newId } from '#platform/ids';
import { userOf, type Caller } from '#platform/http/auth';
import type { OrganizationRole } from '#platform/permissions';
import { DecidingHandler } from '#runtime/command-handler';
import {
  memberSeenDecider,
  memberSeenStream,
  organizationDecider,
  organizationStream,
  requireAdmin,
  type OrganizationCommand,
  type ProposedInvitation,
} from './organization.decider';
import { InvitationLocator } from './member.queries';

export interface Invitation {
  email: string;
  role?: OrganizationRole;
}

/*
 * The member commands: invitations, link invites, roles, removal, SSO membership and presence,
 * each decided by the organization stream. `JoinBySso` is dispatched by the port adapter the sso
 * context uses, since a SAML login joins people as SSO members.
 *
 * Members, invitations and link invites live in the organization's stream: `ifMatch` is its
 * revision, the ETag of the organization and of each of its members and link invites. Whoever may
 * not make the change is refused (404, 403) whatever the revision: the command processor decides
 * before it compares it, so a 412 tells them nothing about the organization.
 */

/**
 * `POST /v1/orgs/{organizationId}/invites`: admins invite people by e-mail. Each address gets a
 * pending invitation (its pending one is refreshed), and nobody joins until they accept it. No
 * account is looked up or created: the answer, one invitation id per address, reads the same
 * whether an address has an account, is a member already or was invited before, so it tells the
 * admin nothing about other people. The role is the invitation's own, else the request's, else the
 * organization's default role, else `read`.
 */
export class InviteByEmail extends Command<{ invites: string[]; invited: number }> {
  constructor(
    readonly organizationId: string,
    readonly invitations: Invitation[],
    readonly role: OrganizationRole | undefined,
    readonly sso: boolean,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(InviteByEmail)
export class InviteByEmailHandler extends DecidingHandler {
  async execute({ organizationId, invitations, role, sso, caller }: InviteByEmail): Promise<{ invites: string[]; invited: number }> {
    const byUserId = userOf(caller).userId;
    const stream = organizationStream(organizationId);
    const { state } = await this.load(stream, organizationDecider);
    const denied = requireAdmin(state, organizationId, byUserId);
    if (denied) throw denied;
    const fallback: OrganizationRole = role !== undefined ? role : (state.fields.defaultRole ?? 'read');
    const proposed: ProposedInvitation[] = invitations.map((invitation) => ({
      invitationId: newId(),
      email: invitation.email,
      role: invitation.role !== undefined ? invitation.role : fallback,
    }));
    const outcome = await this.decide(
      stream,
      organizationDecider,
      { kind: 'InviteByEmail', organizationId, invitations: proposed, sso, byUserId, now: this.now() },
      { caller },
    );
    const invites = outcome.events.flatMap((event) => (event.type === 'MemberInvited' ? [event.data.invitationId] : []));
    return { invites, invited: invites.length };
  }
}

/** `POST /v1/user/invites/{inviteId}`: the invitee joins with the invited role; anyone else gets 404. Answers the organization joined. */
export class AcceptInvitation extends Command<string> {
  constructor(
    readonly invitationId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(AcceptInvitation)
export class AcceptInvitationHandler extends DecidingHandler {
  constructor(private readonly invitations: InvitationLocator) {
    super();
  }

  async execute({ invitationId, caller }: AcceptInvitation): Promise<string> {
    const organizationId = await this.invitations.organizationOf(invitationId, caller);
    const { userId, user } = userOf(caller);
    await this.decide(
      organizationStream(organizationId),
      organizationDecider,
      { kind: 'AcceptInvitation', organizationId, invitationId, userId, email: user.email, now: this.now() },
      { caller },
    );
    return organizationId;
  }
}

/** `DELETE /v1/user/invites/{inviteId}`: the invitee declines; anyone else gets 404. */
export class DeclineInvitation extends Command<void> {
  constructor(
    readonly invitationId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(DeclineInvitation)
export class DeclineInvitationHandler extends DecidingHandler {
  constructor(private readonly invitations: InvitationLocator) {
    super();
  }

  async execute({ invitationId, caller }: DeclineInvitation): Promise<void> {
    const organizationId = await this.invitations.organizationOf(invitationId, caller);
    const { userId, user } = userOf(caller);
    await this.decide(
      organizationStream(organizationId),
      organizationDecider,
      { kind: 'DeclineInvitation', organizationId, invitationId, userId, email: user.email, now: this.now() },
      { caller },
    );
  }
}

/** `DELETE /v1/orgs/{organizationId}/pending-invites/{inviteId}`: admins revoke a pending invitation. */
export class RevokeInvitation extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly invitationId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(RevokeInvitation)
export class RevokeInvitationHandler extends DecidingHandler {
  async execute({ organizationId, invitationId, caller, ifMatch }: RevokeInvitation): Promise<void> {
    const stream = organizationStream(organizationId);
    const command: OrganizationCommand = {
      kind: 'RevokeInvitation',
      organizationId,
      invitationId,
      byUserId: userOf(caller).userId,
      now: this.now(),
    };
    await this.decide(stream, organizationDecider, command, { caller, ifMatch });
  }
}

/** `POST /v1/orgs/{organizationId}/invites/{inviteId}`: the caller joins through a link invite. */
export class JoinByLink extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly inviteId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(JoinByLink)
export class JoinByLinkHandler extends DecidingHandler {
  async execute({ organizationId, inviteId, caller }: JoinByLink): Promise<void> {
    const userId = userOf(caller).userId;
    await this.decide(
      organizationStream(organizationId),
      organizationDecider,
      { kind: 'JoinByLink', organizationId, inviteId, userId, now: this.now() },
      { caller },
    );
  }
}

/** For the SSO context after a verified SAML login: joins the user as an SSO member (or marks them as one). */
export class JoinBySso extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly userId: string,
    readonly role: OrganizationRole,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(JoinBySso)
export class JoinBySsoHandler extends DecidingHandler {
  async execute({ organizationId, userId, role, caller }: JoinBySso): Promise<void> {
    await this.decide(
      organizationStream(organizationId),
      organizationDecider,
      { kind: 'JoinBySso', organizationId, userId, role, now: this.now() },
      { caller },
    );
  }
}

/** `PATCH /v1/orgs/{organizationId}/members/{userId}`: admins change roles (null: guest); the last admin cannot be demoted (409). */
export class ChangeMemberRole extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly userId: string,
    readonly role: OrganizationRole,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(ChangeMemberRole)
export class ChangeMemberRoleHandler extends DecidingHandler {
  async execute({ organizationId, userId, role, caller, ifMatch }: ChangeMemberRole): Promise<void> {
    const stream = organizationStream(organizationId);
    const command: OrganizationCommand = { kind: 'ChangeMemberRole', organizationId, userId, role, byUserId: userOf(caller).userId };
    await this.decide(stream, organizationDecider, command, { caller, ifMatch });
  }
}

/**
 * `DELETE /v1/orgs/{organizationId}/members/{userId}`: admins remove anyone, anyone removes
 * themselves; never the last admin (409). The organization side only: taking the member out of its
 * teams follows from their `MemberRemoved` in the teams context.
 */
export class RemoveMember extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly userId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(RemoveMember)
export class RemoveMemberHandler extends DecidingHandler {
  async execute({ organizationId, userId, caller, ifMatch }: RemoveMember): Promise<void> {
    const stream = organizationStream(organizationId);
    const command: OrganizationCommand = { kind: 'RemoveMember', organizationId, userId, byUserId: userOf(caller).userId };
    await this.decide(stream, organizationDecider, command, { caller, ifMatch });
  }
}

/** `POST /v1/orgs/{organizationId}/members/{userId}/sso`: admins make a member an SSO member. */
export class EnableMemberSso extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly userId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(EnableMemberSso)
export class EnableMemberSsoHandler extends DecidingHandler {
  async execute({ organizationId, userId, caller, ifMatch }: EnableMemberSso): Promise<void> {
    const stream = organizationStream(organizationId);
    const command: OrganizationCommand = { kind: 'EnableMemberSso', organizationId, userId, byUserId: userOf(caller).userId };
    await this.decide(stream, organizationDecider, command, { caller, ifMatch });
  }
}

/** `POST /v1/orgs/{organizationId}/link-invites`: answers the new link invite's id. */
export class CreateLinkInvite extends Command<string> {
  constructor(
    readonly organizationId: string,
    readonly role: OrganizationRole,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(CreateLinkInvite)
export class CreateLinkInviteHandler extends DecidingHandler {
  async execute({ organizationId, role, caller }: CreateLinkInvite): Promise<string> {
    const inviteId = newId();
    const byUserId = userOf(caller).userId;
    await this.decide(
      organizationStream(organizationId),
      organizationDecider,
      { kind: 'CreateLinkInvite', organizationId, inviteId, role, byUserId, now: this.now() },
      { caller },
    );
    return inviteId;
  }
}

/** `DELETE /v1/orgs/{organizationId}/link-invites/{inviteId}` */
export class DeleteLinkInvite extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly inviteId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(DeleteLinkInvite)
export class DeleteLinkInviteHandler extends DecidingHandler {
  async execute({ organizationId, inviteId, caller, ifMatch }: DeleteLinkInvite): Promise<void> {
    const stream = organizationStream(organizationId);
    const command: OrganizationCommand = { kind: 'DeleteLinkInvite', organizationId, inviteId, byUserId: userOf(caller).userId };
    await this.decide(stream, organizationDecider, command, { caller, ifMatch });
  }
}

/** `POST /v1/orgs/{organizationId}/ping`: members only; at most one MemberSeen per member per minute reaches the log. */
export class RecordSeen extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(RecordSeen)
export class RecordSeenHandler extends DecidingHandler {
  async execute({ organizationId, caller }: RecordSeen): Promise<void> {
    const userId = userOf(caller).userId;
    const { state } = await this.load(organizationStream(organizationId), organizationDecider);
    if (!state.exists || !state.members.has(userId)) throw DomainError.notFound(`no organization ${organizationId}`);
    await this.decide(
      memberSeenStream(organizationId, userId),
      memberSeenDecider,
      { kind: 'RecordSeen', organizationId, userId, now: this.now() },
      { caller },
    );
  }
}

export const memberCommandHandlers = [
  InviteByEmailHandler,
  AcceptInvitationHandler,
  DeclineInvitationHandler,
  RevokeInvitationHandler,
  JoinByLinkHandler,
  JoinBySsoHandler,
  ChangeMemberRoleHandler,
  RemoveMemberHandler,
  EnableMemberSsoHandler,
  CreateLinkInviteHandler,
  DeleteLinkInviteHandler,
  RecordSeenHandler,
];
