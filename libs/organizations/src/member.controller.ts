import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { CurrentCaller, userOf, type Caller } from '../../platform/src/http/auth';
import { PathId } from '../../platform/src/http/id-param';
import { ListQuery } from '../../platform/src/http/list';
import { ChangeMemberRole, CreateLinkInvite, DeleteLinkInvite, EnableMemberSso, InviteMembers, JoinByLink, RecordMemberSeen, RemoveMember } from './member.commands';
import { InviteBody, LinkInviteBody, MemberListQuery, MemberSpacesQuery, UpdateMemberBody } from './member.dto';
import { GetLinkInvite, GetMember, ListLinkInvites, ListMembers, ListMemberSpaces } from './member.queries';
import { VisitorClaimsSigner } from './visitor-claims';
import { Valid } from '../../platform/src/http/validation';

/** Members, invites and link invites: `/v1/orgs/{organizationId}/…`. */
@Controller('v1/orgs/:organizationId')
export class MemberController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
    private readonly claims: VisitorClaimsSigner,
  ) {}

  @Get('members')
  list(@PathId('organizationId', 'organization') organizationId: string, @Query(Valid) query: MemberListQuery, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(
      new ListMembers(organizationId, caller, { page: query.page, limit: query.limit, order: query.order ?? 'desc', role: query.role, search: query.search, sort: query.sort ?? 'joinedAt' }),
    );
  }

  @Get('members/:userId')
  get(@PathId('organizationId', 'organization') organizationId: string, @PathId('userId', 'member') userId: string, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new GetMember(organizationId, userId, caller));
  }

  /** Admins change roles (null: guest); the last admin cannot be demoted (409). */
  @Patch('members/:userId')
  async update(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('userId', 'member') userId: string,
    @Body(Valid) body: UpdateMemberBody,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new ChangeMemberRole(organizationId, userId, body.role, caller));
    return this.queryBus.execute(new GetMember(organizationId, userId, caller));
  }

  /** Admins remove anyone, anyone removes themselves; never the last admin (409). */
  @Delete('members/:userId')
  @HttpCode(204)
  async remove(@PathId('organizationId', 'organization') organizationId: string, @PathId('userId', 'member') userId: string, @CurrentCaller() caller: Caller) {
    await this.commandBus.execute(new RemoveMember(organizationId, userId, caller));
  }

  @Post('members/:userId/sso')
  @HttpCode(200)
  async sso(@PathId('organizationId', 'organization') organizationId: string, @PathId('userId', 'member') userId: string, @CurrentCaller() caller: Caller) {
    await this.commandBus.execute(new EnableMemberSso(organizationId, userId, caller));
    return this.queryBus.execute(new GetMember(organizationId, userId, caller));
  }

  @Get('members/:userId/spaces')
  spaces(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('userId', 'member') userId: string,
    @Query(Valid) query: MemberSpacesQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListMemberSpaces(organizationId, userId, caller, query.page, query.limit, query.order));
  }

  /** Records the caller as seen (at most once a minute in the log) and returns signed visitor claims. */
  @Post('ping')
  @HttpCode(200)
  async ping(@PathId('organizationId', 'organization') organizationId: string, @CurrentCaller() caller: Caller) {
    await this.commandBus.execute(new RecordMemberSeen(organizationId, caller));
    const user = userOf(caller);
    return { serviceVisitorClaims: await this.claims.sign(user.userId, organizationId, user.user.email) };
  }

  /** `POST /invites` (extension): `{ users: string[], invited: number }`. */
  @Post('invites')
  @HttpCode(200)
  invite(@PathId('organizationId', 'organization') organizationId: string, @Body(Valid) body: InviteBody, @CurrentCaller() caller: Caller) {
    return this.commandBus.execute(new InviteMembers(organizationId, body.emails, body.role, body.sso ?? false, caller));
  }

  /** Joins the caller through a link invite; answers with the caller as a member. */
  @Post('invites/:inviteId')
  @HttpCode(200)
  async join(@PathId('organizationId', 'organization') organizationId: string, @PathId('inviteId', 'invite') inviteId: string, @CurrentCaller() caller: Caller) {
    await this.commandBus.execute(new JoinByLink(organizationId, inviteId, caller));
    return this.queryBus.execute(new GetMember(organizationId, userOf(caller).userId, caller));
  }

  @Get('link-invites')
  linkInvites(@PathId('organizationId', 'organization') organizationId: string, @Query(Valid) query: ListQuery, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new ListLinkInvites(organizationId, caller, query.page, query.limit));
  }

  @Post('link-invites')
  @HttpCode(201)
  async createLinkInvite(@PathId('organizationId', 'organization') organizationId: string, @Body(Valid) body: LinkInviteBody, @CurrentCaller() caller: Caller) {
    const { inviteId } = await this.commandBus.execute(new CreateLinkInvite(organizationId, body.role === undefined ? 'read' : body.role, caller));
    return this.queryBus.execute(new GetLinkInvite(organizationId, inviteId, caller));
  }

  @Get('link-invites/:inviteId')
  linkInvite(@PathId('organizationId', 'organization') organizationId: string, @PathId('inviteId', 'invite') inviteId: string, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new GetLinkInvite(organizationId, inviteId, caller));
  }

  /** 205, as the interface document gives it. */
  @Delete('link-invites/:inviteId')
  @HttpCode(205)
  async deleteLinkInvite(@PathId('organizationId', 'organization') organizationId: string, @PathId('inviteId', 'invite') inviteId: string, @CurrentCaller() caller: Caller) {
    await this.commandBus.execute(new DeleteLinkInvite(organizationId, inviteId, caller));
  }
}
