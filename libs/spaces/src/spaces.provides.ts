/**
 * What the spaces context provides to other contexts: its implementations of ports they declare
 * (organizations, content, change requests, comments, integrations, sites), matched structurally so
 * that the consumer does not import this context; the composition root binds them. Each injects only
 * the buses and dispatches the context's own queries and commands.
 */
import { Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { Caller } from '#platform/http/auth';
import type { OrganizationRole } from '#platform/permissions';
import { CountMemberSpaces, ListMemberSpaces, type MemberSpacesPage } from './member-spaces';
import { CreateSpace } from './space.commands';
import {
  FindSpace,
  GetSpace,
  GetSpaceAccess,
  ListReadableSpaces,
  PresentSpaceOnSite,
  ReadsEverySpace,
  type SpaceSummary,
} from './space.queries';

/** Implements the organizations' MEMBER_SPACES port: members' space counts and a member's spaces. */
@Injectable()
export class MemberSpaces {
  constructor(private readonly queryBus: QueryBus) {}

  spaceCountsByUser(
    organizationId: string,
    members: ReadonlyArray<{ userId: string; role: OrganizationRole }>,
  ): Promise<Map<string, number>> {
    return this.queryBus.execute(new CountMemberSpaces(organizationId, members));
  }

  list(
    organizationId: string,
    member: { userId: string; role: OrganizationRole },
    caller: { userId: string; role: OrganizationRole },
    options: { page?: string; limit?: number; order?: 'asc' | 'desc' },
  ): Promise<MemberSpacesPage> {
    return this.queryBus.execute(new ListMemberSpaces(organizationId, member, caller, options));
  }
}

/** Implements content's CONTENT_SPACES port with the spaces context's own access rules. */
@Injectable()
export class SpacesForContent {
  constructor(private readonly queryBus: QueryBus) {}

  async spaceFor(spaceId: string, caller: Caller, shareKey?: string) {
    const { space, permissions } = await this.queryBus.execute(new GetSpaceAccess(spaceId, caller, shareKey));
    return {
      ...space,
      permissions: { view: permissions.view, edit: permissions.edit, comment: permissions.comment, admin: permissions.admin },
    };
  }

  spaceById(spaceId: string): Promise<SpaceSummary | null> {
    return this.queryBus.execute(new FindSpace(spaceId));
  }

  readableSpaces(organizationId: string, caller: Caller): Promise<Array<{ id: string; title: string }>> {
    return this.queryBus.execute(new ListReadableSpaces(organizationId, caller));
  }
}

/** Implements change requests' CHANGE_REQUEST_SPACES port: the space with the review and merge permissions too. */
@Injectable()
export class SpacesForChangeRequests {
  constructor(private readonly queryBus: QueryBus) {}

  async spaceFor(spaceId: string, caller: Caller) {
    const { space, permissions } = await this.queryBus.execute(new GetSpaceAccess(spaceId, caller));
    const { view, edit, comment, admin, review, merge } = permissions;
    return { ...space, permissions: { view, edit, comment, admin, review, merge } };
  }

  readableSpaces(organizationId: string, caller: Caller): Promise<Array<{ id: string; title: string }>> {
    return this.queryBus.execute(new ListReadableSpaces(organizationId, caller));
  }

  /** A role on the organization is a role on every space (`spaceRole`: a default level only ever raises it). */
  readsEverySpace(organizationId: string, caller: Caller): Promise<boolean> {
    return this.queryBus.execute(new ReadsEverySpace(organizationId, caller));
  }
}

/** Implements comments' COMMENT_SPACES port: the space with what the caller may do with comments. */
@Injectable()
export class SpacesForComments {
  constructor(private readonly queryBus: QueryBus) {}

  async spaceFor(spaceId: string, caller: Caller) {
    const { space, permissions } = await this.queryBus.execute(new GetSpaceAccess(spaceId, caller));
    return {
      id: space.id,
      organizationId: space.organizationId,
      deleted: space.deleted,
      permissions: { view: permissions.view, comment: permissions.comment, admin: permissions.admin },
    };
  }
}

/** Implements integrations' INTEGRATION_SPACES port: a space's organization, and its Space object for `extended` lists. */
@Injectable()
export class SpacesForIntegrations {
  constructor(private readonly queryBus: QueryBus) {}

  async spaceById(spaceId: string) {
    const space = await this.queryBus.execute(new FindSpace(spaceId));
    return space ? { id: space.id, organizationId: space.organizationId, deleted: space.deleted } : null;
  }

  /** The Space object as the caller may see it; null when they may not. */
  async present(spaceId: string, caller: Caller) {
    try {
      return (await this.queryBus.execute(new GetSpace(spaceId, caller))).space;
    } catch {
      return null;
    }
  }
}

/** Implements sites' SITE_SPACES port: a space's organization and title, and its Space object as the caller may see it. */
@Injectable()
export class SpacesForSites {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  /**
   * The Space object a docs site of `organizationId` shows, for one of its readers (null: a reader
   * outside the organization), whatever its visibility; null when it is not a live space of that
   * organization (`PresentSpaceOnSite`).
   */
  presentOnSite(spaceId: string, organizationId: string, caller: Caller | null) {
    return this.queryBus.execute(new PresentSpaceOnSite(spaceId, organizationId, caller));
  }

  createSpace(organizationId: string, title: string, caller: Caller): Promise<string> {
    return this.commandBus.execute(new CreateSpace(organizationId, { title }, caller));
  }

  async spaceById(spaceId: string) {
    const space = await this.queryBus.execute(new FindSpace(spaceId));
    return space ? { id: space.id, organizationId: space.organizationId, title: space.title, deleted: space.deleted } : null;
  }

  /** The Space object as the caller may see it; null when they may not. */
  async present(spaceId: string, caller: Caller) {
    try {
      return (await this.queryBus.execute(new GetSpace(spaceId, caller))).space;
    } catch {
      return null;
    }
  }
}
