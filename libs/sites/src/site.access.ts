import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { ID_SHAPES } from '#platform/ids';
import type { OrganizationRole } from '#platform/permissions';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { COMMAND_RUNNER, type CommandRunner } from '#runtime/command-runner';
import { siteDecider, siteStream } from './site.decider';
import { siteRole } from './site.permissions';
import { SITES, type SiteDoc } from './site.projections';
import { SiteReaders } from './site.readers';
import { SITE_CONTENT, SITE_ORGANIZATIONS, SITE_SPACES, type SiteContent, type SiteOrganizations, type SiteSpaces } from './sites.needs';

/** What a command carries of its caller (site.decider.ts, Acting). */
export interface Acting {
  allowed: boolean;
  role: OrganizationRole;
}

/**
 * Who an answer is presented to: a member of the site's organization (their role) or a reader from
 * outside it (the published site's readers, share-key holders). It decides `permissions`, and the
 * Space objects the site spaces embed are presented with the same caller's permissions on them.
 */
export interface Viewer {
  /** The member, as the spaces context needs them; null for readers outside the organization. */
  member: Caller | null;
  role: OrganizationRole;
}

/** A reader outside the site's organization: no role, their own permissions only. */
export const OUTSIDER: Viewer = { member: null, role: null };

/**
 * Who may do what with a site, decided in one place for the site commands and queries: people
 * outside the organization get 404 (its existence is not revealed), members who may not get 403.
 * Creating a site needs the `create` role in the organization; changing one needs `admin` (which
 * the site's `defaultLevel` may give). Spaces added to a site must be live spaces of its organization.
 */
@Injectable()
export class SiteAccess {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    @Inject(SITE_ORGANIZATIONS) private readonly organizations: SiteOrganizations,
    @Inject(SITE_SPACES) private readonly spaces: SiteSpaces,
    @Inject(SITE_CONTENT) private readonly content: SiteContent,
    private readonly readers: SiteReaders,
  ) {}

  // ---- the caller -----------------------------------------------------------------------------------

  /** The caller's standing in the organization (null for anyone but a user). */
  standing(organizationId: string, caller: Caller) {
    return caller.kind === 'user' ? this.organizations.roleOf(organizationId, caller.userId) : Promise.resolve(null);
  }

  /** The caller's standing in the organization, or 404 for people outside it. */
  async requireMember(organizationId: string, caller: Caller) {
    const standing = await this.standing(organizationId, caller);
    if (!standing?.member) throw DomainError.notFound(`no organization ${organizationId}`);
    return standing;
  }

  /** The caller's organization role; 404 for people outside the organization. */
  async role(organizationId: string, caller: Caller): Promise<OrganizationRole> {
    return (await this.requireMember(organizationId, caller)).role;
  }

  /** What a command needs of the caller: `allowed` for organization admins, and their role, which the site's `defaultLevel` may raise to its admin role. */
  async acting(organizationId: string, caller: Caller): Promise<Acting> {
    const role = await this.role(organizationId, caller);
    return { allowed: role === 'admin', role };
  }

  // ---- writes -----------------------------------------------------------------------------------------

  /** Whether the caller administers the site as it stands (an unknown site: false, the decider then answers 404). */
  async administers(organizationId: string, siteId: string, acting: Acting): Promise<boolean> {
    if (acting.allowed) return true;
    const { state } = await this.commands.load(siteStream(siteId), siteDecider);
    return (
      state.site !== null && state.site.organizationId === organizationId && siteRole(acting.role, state.site.defaultLevel) === 'admin'
    );
  }

  /** A live space of the organization, or 404 (an id of another shape names none, and is not looked up). */
  async space(organizationId: string, spaceId: string) {
    const space = ID_SHAPES.entity.test(spaceId) ? await this.spaces.spaceById(spaceId) : null;
    if (!space || space.deleted || space.organizationId !== organizationId)
      throw DomainError.notFound(`no space ${spaceId} in organization ${organizationId}`);
    return space;
  }

  /**
   * The space a new section or site space shows: a live space of the organization, or (`spaceId`
   * null) a new one titled `title`, created only for the site's administrators (anyone else is
   * refused by the decider, and must not leave a space behind).
   */
  async siteSpaceContent(organizationId: string, siteId: string, spaceId: string | null, title: string, acting: Acting, caller: Caller) {
    if (spaceId !== null) return this.space(organizationId, spaceId);
    if (!(await this.administers(organizationId, siteId, acting)))
      throw DomainError.forbidden(`only admins of site ${siteId} may change it`);
    return this.space(organizationId, await this.spaces.createSpace(organizationId, title, caller));
  }

  /** A page of the space's primary content, or 404; checked for the site's administrators only (others learn nothing of pages, and the decider refuses them). */
  async requirePage(organizationId: string, siteId: string, acting: Acting, spaceId: string, pageId: string): Promise<void> {
    if (!(await this.administers(organizationId, siteId, acting))) return;
    const content = await this.content.content(spaceId);
    if (!content?.pages.some((page) => page.id === pageId)) throw DomainError.notFound(`no page ${pageId} in space ${spaceId}`);
  }

  // ---- reads ------------------------------------------------------------------------------------------

  /** A live site of the organization the caller belongs to, and the caller as a viewer of it; 404 otherwise. */
  async memberSite(organizationId: string, siteId: string, caller: Caller): Promise<{ site: SiteDoc; viewer: Viewer }> {
    const standing = await this.requireMember(organizationId, caller);
    return { site: await this.live(organizationId, siteId), viewer: { member: caller, role: standing.role } };
  }

  /**
   * The site for a list of its structure: all of it for members of its organization; for anyone
   * else holding `shareKey`, the published site as that key's reader sees it; else 404.
   */
  async siteOrShared(
    organizationId: string,
    siteId: string,
    caller: Caller,
    shareKey: string | undefined,
  ): Promise<{ site: SiteDoc; viewer: Viewer }> {
    const standing = await this.standing(organizationId, caller);
    if (standing?.member) return { site: await this.live(organizationId, siteId), viewer: { member: caller, role: standing.role } };
    if (shareKey === undefined) throw DomainError.notFound(`no organization ${organizationId}`);
    return { site: (await this.readers.readable({ siteId }, { shareKey }, organizationId)).site, viewer: OUTSIDER };
  }

  /** An administrator of the site (their organization role, as its `defaultLevel` raises it), or 403 (members) / 404 (anyone else). */
  async administered(organizationId: string, siteId: string, caller: Caller): Promise<SiteDoc> {
    const standing = await this.requireMember(organizationId, caller);
    const site = await this.live(organizationId, siteId);
    if (siteRole(standing.role, site.defaultLevel) !== 'admin')
      throw DomainError.forbidden(`only admins of site ${siteId} may see its keys`);
    return site;
  }

  private async live(organizationId: string, siteId: string): Promise<SiteDoc> {
    const site = await this.reads.collection<SiteDoc>(SITES).get(siteId);
    if (!site || site.deleted || site.organizationId !== organizationId) throw DomainError.notFound(`no site ${siteId}`);
    return site;
  }
}
