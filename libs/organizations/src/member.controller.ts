import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Body, Controller, Delete, Get, Headers, HttpCode, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { etagHeader, listOf, ref } from '#platform/platform.schemas';
import { parseIfMatch, tagged } from '#platform/http/etag';
import { CurrentCaller, userOf, type Caller } from '#platform/http/auth';
import { PathId } from '#platform/http/id-param';
import { ListQuery } from '#platform/http/list';
import {
  AcceptInvitation,
  ChangeMemberRole,
  CreateLinkInvite,
  DeclineInvitation,
  DeleteLinkInvite,
  EnableMemberSso,
  InviteByEmail,
  JoinByLink,
  RecordSeen,
  RemoveMember,
  RevokeInvitation,
} from './member.commands';
import { InviteBody, LinkInviteBody, MemberListQuery, MemberSpacesQuery, UpdateMemberBody } from './member.dto';
import {
  GetLinkInvite,
  GetMember,
  ListLinkInvites,
  ListMembers,
  ListMemberSpaces,
  ListPendingInvites,
  ListUserInvites,
  SignVisitorClaims,
} from './member.queries';
import { Valid } from '#platform/http/validation';
import { CachedRead } from '#platform/http/response-cache';

/**
 * Members, invites and link invites: `/v1/orgs/{organizationId}/…`. They live in the organization's
 * stream, so a member and a link invite answer the organization's ETag, and their writes (and the
 * revocation of a pending invite) accept it as `If-Match` (412 when stale).
 */
@Controller('v1/orgs/:organizationId')
export class MemberController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get('members')
  @ApiOkResponse({ description: 'OK', schema: listOf('Member') })
  @CachedRead()
  list(
    @PathId('organizationId', 'organization') organizationId: string,
    @Query(Valid) query: MemberListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(
      new ListMembers(organizationId, caller, {
        page: query.page,
        limit: query.limit,
        order: query.order ?? 'desc',
        role: query.role,
        search: query.search,
        sort: query.sort ?? 'joinedAt',
      }),
    );
  }

  @Get('members/:userId')
  @ApiOkResponse({ description: 'OK', schema: ref('Member'), headers: etagHeader })
  @CachedRead()
  async get(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('userId', 'member') userId: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return tagged(reply, await this.queryBus.execute(new GetMember(organizationId, userId, caller)));
  }

  /** Admins change roles (null: guest); the last admin cannot be demoted (409). */
  @Patch('members/:userId')
  @ApiOkResponse({ description: 'OK', schema: ref('Member'), headers: etagHeader })
  async update(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('userId', 'member') userId: string,
    @Body(Valid) body: UpdateMemberBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(new ChangeMemberRole(organizationId, userId, body.role, caller, parseIfMatch(ifMatch)));
    return tagged(reply, await this.queryBus.execute(new GetMember(organizationId, userId, caller)));
  }

  /** Admins remove anyone, anyone removes themselves; never the last admin (409). */
  @Delete('members/:userId')
  @ApiNoContentResponse({ description: 'done' })
  @HttpCode(204)
  async remove(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('userId', 'member') userId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new RemoveMember(organizationId, userId, caller, parseIfMatch(ifMatch)));
  }

  @Post('members/:userId/sso')
  @ApiOkResponse({ description: 'OK', schema: ref('Member'), headers: etagHeader })
  @HttpCode(200)
  async sso(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('userId', 'member') userId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(new EnableMemberSso(organizationId, userId, caller, parseIfMatch(ifMatch)));
    return tagged(reply, await this.queryBus.execute(new GetMember(organizationId, userId, caller)));
  }

  @Get('members/:userId/spaces')
  @ApiOkResponse({ description: 'OK', schema: listOf('MemberSpace') })
  spaces(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('userId', 'member') userId: string,
    @Query(Valid) query: MemberSpacesQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(
      new ListMemberSpaces(organizationId, userId, caller, { page: query.page, limit: query.limit, order: query.order }),
    );
  }

  /** Records the caller as seen (at most once a minute in the log) and returns signed visitor claims. */
  @Post('ping')
  @ApiOkResponse({ description: 'OK', schema: ref('VisitorClaims') })
  @HttpCode(200)
  async ping(@PathId('organizationId', 'organization') organizationId: string, @CurrentCaller() caller: Caller) {
    await this.commandBus.execute(new RecordSeen(organizationId, caller));
    return this.queryBus.execute(new SignVisitorClaims(organizationId, caller));
  }

  /**
   * `POST /invites` (extension): invites by e-mail, pending until each person accepts. Answers
   * `{ invites: string[], invited: number }`, one invitation per address, the same whoever the
   * addresses belong to.
   */
  @Post('invites')
  @ApiOkResponse({ description: 'OK', schema: ref('Invited') })
  @HttpCode(200)
  invite(@PathId('organizationId', 'organization') organizationId: string, @Body(Valid) body: InviteBody, @CurrentCaller() caller: Caller) {
    return this.commandBus.execute(new InviteByEmail(organizationId, body.emails, body.role, body.sso ?? false, caller));
  }

  /** Admins list the pending invitations by e-mail. */
  @Get('pending-invites')
  @ApiOkResponse({ description: 'OK', schema: listOf('PendingInvite') })
  pendingInvites(
    @PathId('organizationId', 'organization') organizationId: string,
    @Query(Valid) query: ListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListPendingInvites(organizationId, caller, { page: query.page, limit: query.limit }));
  }

  /** Admins revoke a pending invitation: 204. */
  @Delete('pending-invites/:inviteId')
  @ApiNoContentResponse({ description: 'revoked' })
  @HttpCode(204)
  async revokeInvite(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('inviteId', 'invite') inviteId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new RevokeInvitation(organizationId, inviteId, caller, parseIfMatch(ifMatch)));
  }

  /** Joins the caller through a link invite; answers with the caller as a member. */
  @Post('invites/:inviteId')
  @ApiOkResponse({ description: 'the caller, now a member', schema: ref('Member') })
  @HttpCode(200)
  async join(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('inviteId', 'invite') inviteId: string,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new JoinByLink(organizationId, inviteId, caller));
    return (await this.queryBus.execute(new GetMember(organizationId, userOf(caller).userId, caller))).object;
  }

  @Get('link-invites')
  @ApiOkResponse({ description: 'OK', schema: listOf('LinkInvite') })
  linkInvites(
    @PathId('organizationId', 'organization') organizationId: string,
    @Query(Valid) query: ListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListLinkInvites(organizationId, caller, { page: query.page, limit: query.limit }));
  }

  @Post('link-invites')
  @ApiCreatedResponse({ description: 'created', schema: ref('LinkInvite'), headers: etagHeader })
  @HttpCode(201)
  async createLinkInvite(
    @PathId('organizationId', 'organization') organizationId: string,
    @Body(Valid) body: LinkInviteBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const inviteId = await this.commandBus.execute(
      new CreateLinkInvite(organizationId, body.role === undefined ? 'read' : body.role, caller),
    );
    return tagged(reply, await this.queryBus.execute(new GetLinkInvite(organizationId, inviteId, caller)));
  }

  @Get('link-invites/:inviteId')
  @ApiOkResponse({ description: 'OK', schema: ref('LinkInvite'), headers: etagHeader })
  async linkInvite(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('inviteId', 'invite') inviteId: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return tagged(reply, await this.queryBus.execute(new GetLinkInvite(organizationId, inviteId, caller)));
  }

  /** 205 (Reset Content), as clients of this route expect. */
  @Delete('link-invites/:inviteId')
  @ApiResponse({ status: 205, description: 'deleted' })
  @HttpCode(205)
  async deleteLinkInvite(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('inviteId', 'invite') inviteId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new DeleteLinkInvite(organizationId, inviteId, caller, parseIfMatch(ifMatch)));
  }
}

/** The caller's own invitations by e-mail (extension): `/v1/user/invites…`. */
@Controller('v1/user/invites')
export class UserInvitationController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  /** `{ next?, count, items: organization-invite[] }`: pending invitations to the caller's e-mail. */
  @Get()
  @ApiOkResponse({ description: 'OK', schema: listOf('OrganizationInvite') })
  list(@Query(Valid) query: ListQuery, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new ListUserInvites(caller, { page: query.page, limit: query.limit }));
  }

  /** Accepts: the caller joins with the invited role; answers the caller's Member object. */
  @Post(':inviteId')
  @ApiOkResponse({ description: 'the caller, now a member', schema: ref('Member') })
  @HttpCode(200)
  async accept(@PathId('inviteId', 'invitation') inviteId: string, @CurrentCaller() caller: Caller) {
    const organizationId = await this.commandBus.execute(new AcceptInvitation(inviteId, caller));
    return (await this.queryBus.execute(new GetMember(organizationId, userOf(caller).userId, caller))).object;
  }

  /** Declines: 204. */
  @Delete(':inviteId')
  @ApiNoContentResponse({ description: 'declined' })
  @HttpCode(204)
  async decline(@PathId('inviteId', 'invitation') inviteId: string, @CurrentCaller() caller: Caller) {
    await this.commandBus.execute(new DeclineInvitation(inviteId, caller));
  }
}
