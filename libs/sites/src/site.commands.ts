import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import { ID_SHAPES, newId } from '../../platform/src/ids';
import { atLeast, type OrganizationRole } from '../../platform/src/permissions';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { SITE_DOMAINS, SITE_ORGANIZATIONS, SITE_SPACES, type SiteDomains, type SiteOrganizations, type SiteSpaces } from './sites-ports.port';
import { validateAdaptiveSchema } from './site.adaptive';
import { parseCondition } from './site.conditions';
import { changeableSite, siteDecider, siteHostnameDecider, siteHostnameStream, siteStream, type GroupPosition, type Position, type SiteCommand } from './site.decider';
import { NEW_SPACE, type SiteChanges, type SiteSectionChanges, type SiteShareLinkChanges, type SiteSpaceChanges, type SiteType, type SiteVisibility } from './site.events';
import { siteRole } from './site.permissions';
import { SITE_CONTENT, type SiteContent } from './published/site-content.port';
import { KeyedMutex } from '../../platform/src/keyed-mutex';
import { pathOf } from './site.paths';

export { pathOf };

/** What a command carries of its caller (site.decider.ts, Acting). */
interface Acting {
  allowed: boolean;
  role: OrganizationRole;
}

/**
 * The site writes: one method per command. Creating a site needs the `create` role in the
 * organization; changing one needs `admin`. Spaces added to a site must be live spaces of its
 * organization.
 */
@Injectable()
export class SiteCommands {
  private readonly hostnameChanges = new KeyedMutex();

  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    @Inject(SITE_ORGANIZATIONS) private readonly organizations: SiteOrganizations,
    @Inject(SITE_SPACES) private readonly spaces: SiteSpaces,
    @Inject(SITE_DOMAINS) private readonly domains: SiteDomains,
    @Inject(SITE_CONTENT) private readonly content: SiteContent,
  ) {}

  async create(organizationId: string, body: { type?: SiteType; title?: string; visibility?: SiteVisibility; spaces?: string[] | typeof NEW_SPACE }, caller: Caller): Promise<string> {
    const role = await this.role(organizationId, caller);
    if (!atLeast(role, 'create')) throw DomainError.forbidden('creating a site needs the create role in the organization');
    const siteId = newId();
    const siteSpaces = [];
    // A new space takes the site's title; it is created first, so a site never names a missing space.
    const spaceIds = body.spaces === NEW_SPACE ? [await this.spaces.createSpace(organizationId, body.title ?? 'Docs', caller)] : (body.spaces ?? []);
    for (const spaceId of spaceIds) siteSpaces.push({ siteSpaceId: newId(), spaceId, path: pathOf((await this.space(organizationId, spaceId)).title) });
    await this.run(
      { kind: 'CreateSite', siteId, organizationId, type: body.type ?? 'basic', title: body.title ?? 'Docs', visibility: body.visibility ?? 'public', siteSpaces, by: (caller as { userId: string }).userId, allowed: atLeast(role, 'create'), now: this.now() },
      caller,
    );
    return siteId;
  }

  /**
   * A new hostname is claimed before the site changes (a taken one fails with 409, one outside the
   * organization's verified domains with 403, and nothing changes), released again if the change is
   * refused, and the one it replaces released after; as organizations do with theirs. Hostname
   * changes of one site run one at a time.
   */
  async update(organizationId: string, siteId: string, changes: SiteChanges, defaults: { defaultSiteSpace?: string; defaultSiteSection?: string }, caller: Caller, ifMatch?: number): Promise<void> {
    const acting = await this.acting(organizationId, caller);
    const command: SiteCommand = { kind: 'UpdateSite', siteId, organizationId, changes, ...defaults, ...acting, now: this.now() };
    const apply = () => this.run(command, caller, ifMatch);
    // A style guide is a space of the site's organization (only its administrators learn which ids are not).
    if (typeof changes.styleguide === 'string' && (await this.administers(organizationId, siteId, acting))) await this.space(organizationId, changes.styleguide);
    if (changes.hostname === undefined) return apply();
    await this.hostnameChanges.run(siteId, async () => {
      const { state, revision } = await this.commands.load(siteStream(siteId), siteDecider);
      // No site of this organization, a caller who may not change it, or a stale If-Match: refused before any hostname is claimed.
      const site = changeableSite(command, state);
      if (site instanceof DomainError) throw site;
      if (ifMatch !== undefined && ifMatch !== revision) throw DomainError.preconditionFailed(`the resource has changed: If-Match names revision ${ifMatch} but it is at ${revision ?? 'none'}`);
      const previous = site.hostname;
      const next = changes.hostname;
      const claiming = typeof next === 'string' && next !== previous;
      if (claiming) await this.claim(next, siteId, organizationId, caller);
      try {
        await apply();
      } catch (error) {
        if (claiming) await this.release(next, siteId, caller);
        throw error;
      }
      if (previous !== null && next !== previous) await this.release(previous, siteId, caller);
    });
  }

  private async hostnameOf(siteId: string): Promise<string | null> {
    const { state } = await this.commands.load(siteStream(siteId), siteDecider);
    return state.site?.hostname ?? null;
  }

  private async claim(hostname: string, siteId: string, organizationId: string, caller: Caller): Promise<void> {
    const verifiedDomains = await this.domains.verifiedDomains(organizationId);
    await this.commands.run(siteHostnameStream(hostname), siteHostnameDecider, { kind: 'ClaimSiteHostname', hostname, siteId, organizationId, verifiedDomains }, { caller }, { wait: false });
  }

  private async release(hostname: string, siteId: string, caller: Caller): Promise<void> {
    await this.commands.run(siteHostnameStream(hostname), siteHostnameDecider, { kind: 'ReleaseSiteHostname', hostname, siteId }, { caller }, { wait: false });
  }

  async publish(organizationId: string, siteId: string, published: boolean, caller: Caller, ifMatch?: number): Promise<void> {
    await this.run({ kind: 'PublishSite', siteId, organizationId, published, ...(await this.acting(organizationId, caller)), now: this.now() }, caller, ifMatch);
  }

  /** A deleted site lets its hostname go. */
  async delete(organizationId: string, siteId: string, caller: Caller, ifMatch?: number): Promise<void> {
    const acting = await this.acting(organizationId, caller);
    const hostname = await this.hostnameOf(siteId);
    await this.run({ kind: 'DeleteSite', siteId, organizationId, ...acting, now: this.now() }, caller, ifMatch);
    if (hostname !== null) await this.release(hostname, siteId, caller);
  }

  // ---- share links and visitor authentication -------------------------------------------------------

  async createShareLink(organizationId: string, siteId: string, name: string | undefined, caller: Caller): Promise<string> {
    const shareLinkId = newId();
    await this.run({ kind: 'CreateShareLink', siteId, organizationId, shareLinkId, key: newId(32), name: name ?? '', by: (caller as { userId: string }).userId, ...(await this.acting(organizationId, caller)), now: this.now() }, caller);
    return shareLinkId;
  }

  async updateShareLink(organizationId: string, siteId: string, shareLinkId: string, changes: SiteShareLinkChanges, caller: Caller, ifMatch?: number): Promise<void> {
    await this.run({ kind: 'UpdateShareLink', siteId, organizationId, shareLinkId, changes, ...(await this.acting(organizationId, caller)), now: this.now() }, caller, ifMatch);
  }

  async deleteShareLink(organizationId: string, siteId: string, shareLinkId: string, caller: Caller, ifMatch?: number): Promise<void> {
    await this.run({ kind: 'DeleteShareLink', siteId, organizationId, shareLinkId, ...(await this.acting(organizationId, caller)), now: this.now() }, caller, ifMatch);
  }

  async configureVisitorAuth(organizationId: string, siteId: string, settings: { jwksUrl: string | null; issuer: string | null }, caller: Caller, ifMatch?: number): Promise<void> {
    await this.run({ kind: 'ConfigureVisitorAuth', siteId, organizationId, ...settings, ...(await this.acting(organizationId, caller)), now: this.now() }, caller, ifMatch);
  }

  /** A new HS256 key: tokens signed with the old one stop working. */
  async rotateVisitorKey(organizationId: string, siteId: string, caller: Caller, ifMatch?: number): Promise<void> {
    await this.run({ kind: 'RotateVisitorKey', siteId, organizationId, ...(await this.acting(organizationId, caller)), now: this.now() }, caller, ifMatch);
  }

  /** The site spaces of a space that is no longer live go (the site-spaces reactor; not found when the site is gone). */
  async removeSpace(organizationId: string, siteId: string, spaceId: string, caller: Caller): Promise<void> {
    await this.run({ kind: 'RemoveSpaceFromSite', siteId, organizationId, spaceId, allowed: true, now: this.now() }, caller);
  }

  /**
   * A section showing a space (`spaceId` null: a new space named after the section). The body's
   * `template` is not applied: the service has no space templates.
   */
  async addSection(organizationId: string, siteId: string, body: { spaceId: string | null; title?: string | null; icon?: string | null; draft?: boolean; pageId?: string; siteSectionGroupId?: string }, caller: Caller): Promise<string> {
    const acting = await this.acting(organizationId, caller);
    if (body.spaceId === null && body.pageId !== undefined) throw DomainError.invalid('pageId names a page of an existing space: it cannot come with spaceId null');
    const space = await this.siteSpaceContent(organizationId, siteId, body.spaceId, body.title ?? 'Untitled section', acting, caller);
    if (body.pageId !== undefined) await this.requirePage(organizationId, siteId, acting, space.id, body.pageId);
    const sectionId = newId();
    const title = body.title ?? space.title;
    await this.run(
      {
        kind: 'AddSection',
        siteId,
        organizationId,
        sectionId,
        title,
        icon: body.icon ?? null,
        path: pathOf(title),
        draft: body.draft === true,
        ...(body.siteSectionGroupId !== undefined ? { groupId: body.siteSectionGroupId } : {}),
        rootSectionId: newId(),
        siteSpace: { siteSpaceId: newId(), spaceId: space.id, path: pathOf(space.title), ...(body.pageId !== undefined ? { pageId: body.pageId } : {}) },
        ...acting,
        now: this.now(),
      },
      caller,
    );
    return sectionId;
  }

  /** `group`: the section group to move the section into (`siteSectionGroupId`), null to take it out of its group. */
  async updateSection(organizationId: string, siteId: string, sectionId: string, changes: SiteSectionChanges, options: { defaultSiteSpace?: string; group?: string | null }, caller: Caller, ifMatch?: number): Promise<void> {
    if (typeof changes.condition === 'string') parseCondition(changes.condition);
    await this.run({ kind: 'UpdateSection', siteId, organizationId, sectionId, changes, ...options, ...(await this.acting(organizationId, caller)), now: this.now() }, caller, ifMatch);
  }

  async removeSection(organizationId: string, siteId: string, sectionId: string, caller: Caller, ifMatch?: number): Promise<void> {
    await this.run({ kind: 'RemoveSection', siteId, organizationId, sectionId, ...(await this.acting(organizationId, caller)), now: this.now() }, caller, ifMatch);
  }

  async moveSection(organizationId: string, siteId: string, sectionId: string, position: Position, caller: Caller, ifMatch?: number): Promise<void> {
    await this.run({ kind: 'MoveSection', siteId, organizationId, sectionId, position, ...(await this.acting(organizationId, caller)), now: this.now() }, caller, ifMatch);
  }

  /** A site space showing a space (`spaceId` null: a new space named after `title`); `template` is not applied. */
  async addSiteSpace(organizationId: string, siteId: string, body: { spaceId: string | null; sectionId?: string; draft?: boolean; pageId?: string | null; title?: string }, caller: Caller): Promise<string> {
    const acting = await this.acting(organizationId, caller);
    const pageId = body.pageId ?? undefined;
    if (body.spaceId === null && pageId !== undefined) throw DomainError.invalid('pageId names a page of an existing space: it cannot come with spaceId null');
    const space = await this.siteSpaceContent(organizationId, siteId, body.spaceId, body.title ?? 'Untitled', acting, caller);
    if (pageId !== undefined) await this.requirePage(organizationId, siteId, acting, space.id, pageId);
    const siteSpaceId = newId();
    const { sectionId, draft, title } = body;
    await this.run(
      { kind: 'AddSiteSpace', siteId, organizationId, siteSpaceId, spaceId: space.id, sectionId, path: pathOf(title ?? space.title), ...(draft ? { draft } : {}), ...(title !== undefined ? { title } : {}), ...(pageId !== undefined ? { pageId } : {}), ...acting, now: this.now() },
      caller,
    );
    return siteSpaceId;
  }

  async updateSiteSpace(organizationId: string, siteId: string, siteSpaceId: string, changes: SiteSpaceChanges, caller: Caller, ifMatch?: number): Promise<void> {
    const acting = await this.acting(organizationId, caller);
    if (typeof changes.condition === 'string') parseCondition(changes.condition);
    if (changes.spaceId !== undefined) await this.space(organizationId, changes.spaceId);
    if (typeof changes.pageId === 'string') {
      const spaceId = changes.spaceId ?? (await this.commands.load(siteStream(siteId), siteDecider)).state.siteSpaces.get(siteSpaceId)?.spaceId;
      // A site space the site does not have: the decider answers 404.
      if (spaceId !== undefined) await this.requirePage(organizationId, siteId, acting, spaceId, changes.pageId);
    }
    await this.run({ kind: 'UpdateSiteSpace', siteId, organizationId, siteSpaceId, changes, ...acting, now: this.now() }, caller, ifMatch);
  }

  async removeSiteSpace(organizationId: string, siteId: string, siteSpaceId: string, caller: Caller, ifMatch?: number): Promise<void> {
    await this.run({ kind: 'RemoveSiteSpace', siteId, organizationId, siteSpaceId, ...(await this.acting(organizationId, caller)), now: this.now() }, caller, ifMatch);
  }

  async moveSiteSpace(organizationId: string, siteId: string, siteSpaceId: string, position: Position, caller: Caller, ifMatch?: number): Promise<void> {
    await this.run({ kind: 'MoveSiteSpace', siteId, organizationId, siteSpaceId, position, ...(await this.acting(organizationId, caller)), now: this.now() }, caller, ifMatch);
  }

  async addSectionGroup(organizationId: string, siteId: string, body: { title: string; icon?: string | null; sections?: string[]; draft?: boolean; parent?: string }, caller: Caller): Promise<string> {
    const groupId = newId();
    const { draft, parent } = body;
    await this.run(
      { kind: 'AddSectionGroup', siteId, organizationId, groupId, title: body.title, icon: body.icon ?? null, sections: body.sections ?? [], ...(draft ? { draft } : {}), ...(parent !== undefined ? { parent } : {}), ...(await this.acting(organizationId, caller)), now: this.now() },
      caller,
    );
    return groupId;
  }

  /** `parent`: the body's `parentSectionGroupId` (null: the site's root, where every group is). */
  async updateSectionGroup(organizationId: string, siteId: string, groupId: string, changes: { title?: string; icon?: string | null; draft?: boolean }, parent: string | null | undefined, caller: Caller, ifMatch?: number): Promise<void> {
    await this.run({ kind: 'UpdateSectionGroup', siteId, organizationId, groupId, changes, ...(parent !== undefined ? { parent } : {}), ...(await this.acting(organizationId, caller)), now: this.now() }, caller, ifMatch);
  }

  async removeSectionGroup(organizationId: string, siteId: string, groupId: string, caller: Caller, ifMatch?: number): Promise<void> {
    await this.run({ kind: 'RemoveSectionGroup', siteId, organizationId, groupId, ...(await this.acting(organizationId, caller)), now: this.now() }, caller, ifMatch);
  }

  async groupSection(organizationId: string, siteId: string, groupId: string, sectionId: string, caller: Caller, ifMatch?: number): Promise<void> {
    await this.run({ kind: 'GroupSection', siteId, organizationId, groupId, sectionId, ...(await this.acting(organizationId, caller)), now: this.now() }, caller, ifMatch);
  }

  async ungroupSection(organizationId: string, siteId: string, groupId: string, sectionId: string, caller: Caller, ifMatch?: number): Promise<void> {
    await this.run({ kind: 'UngroupSection', siteId, organizationId, groupId, sectionId, ...(await this.acting(organizationId, caller)), now: this.now() }, caller, ifMatch);
  }

  async moveSectionGroup(organizationId: string, siteId: string, groupId: string, position: GroupPosition, caller: Caller, ifMatch?: number): Promise<void> {
    await this.run({ kind: 'MoveSectionGroup', siteId, organizationId, groupId, position, ...(await this.acting(organizationId, caller)), now: this.now() }, caller, ifMatch);
  }

  async sortStructure(organizationId: string, siteId: string, sort: { sections: Array<{ id: string; group: string | null }>; siteSpaces: Record<string, string[]> }, caller: Caller, ifMatch?: number): Promise<void> {
    await this.run({ kind: 'SortStructure', siteId, organizationId, ...sort, ...(await this.acting(organizationId, caller)), now: this.now() }, caller, ifMatch);
  }

  async setAdaptiveSchema(organizationId: string, siteId: string, jsonSchema: Record<string, unknown>, caller: Caller, ifMatch?: number): Promise<void> {
    const acting = await this.acting(organizationId, caller);
    // Only the site's administrators learn what is wrong with a schema; others get 403 from the decider.
    if (await this.administers(organizationId, siteId, acting)) validateAdaptiveSchema(jsonSchema);
    await this.run({ kind: 'SetAdaptiveSchema', siteId, organizationId, jsonSchema, ...acting, now: this.now() }, caller, ifMatch);
  }

  /**
   * The space a new section or site space shows: a live space of the organization, or (`spaceId`
   * null) a new one titled `title`, created only for the site's administrators (anyone else is
   * refused by the decider, and must not leave a space behind).
   */
  private async siteSpaceContent(organizationId: string, siteId: string, spaceId: string | null, title: string, acting: Acting, caller: Caller) {
    if (spaceId !== null) return this.space(organizationId, spaceId);
    if (!(await this.administers(organizationId, siteId, acting))) throw DomainError.forbidden(`only admins of site ${siteId} may change it`);
    return this.space(organizationId, await this.spaces.createSpace(organizationId, title, caller));
  }

  /** A page of the space's primary content, or 404; checked for the site's administrators only (others learn nothing of pages, and the decider refuses them). */
  private async requirePage(organizationId: string, siteId: string, acting: Acting, spaceId: string, pageId: string): Promise<void> {
    if (!(await this.administers(organizationId, siteId, acting))) return;
    const content = await this.content.content(spaceId);
    if (!content?.pages.some((page) => page.id === pageId)) throw DomainError.notFound(`no page ${pageId} in space ${spaceId}`);
  }

  /** Whether the caller administers the site as it stands (an unknown site: false, the decider then answers 404). */
  private async administers(organizationId: string, siteId: string, acting: Acting): Promise<boolean> {
    if (acting.allowed) return true;
    const { state } = await this.commands.load(siteStream(siteId), siteDecider);
    return state.site !== null && state.site.organizationId === organizationId && siteRole(acting.role, state.site.defaultLevel) === 'admin';
  }

  /** A live space of the organization, or 404 (an id of another shape names none, and is not looked up). */
  private async space(organizationId: string, spaceId: string) {
    const space = ID_SHAPES.entity.test(spaceId) ? await this.spaces.spaceById(spaceId) : null;
    if (!space || space.deleted || space.organizationId !== organizationId) throw DomainError.notFound(`no space ${spaceId} in organization ${organizationId}`);
    return space;
  }

  /** The caller's organization role; 404 for people outside the organization. */
  private async role(organizationId: string, caller: Caller): Promise<OrganizationRole> {
    const standing = caller.kind === 'user' ? await this.organizations.roleOf(organizationId, caller.userId) : null;
    if (!standing?.member) throw DomainError.notFound(`no organization ${organizationId}`);
    return standing.role;
  }

  /** What a command needs of the caller: `allowed` for organization admins, and their role, which the site's `defaultLevel` may raise to its admin role. */
  private async acting(organizationId: string, caller: Caller): Promise<Acting> {
    const role = await this.role(organizationId, caller);
    return { allowed: role === 'admin', role };
  }

  /**
   * Every part of a site (sections, groups, site spaces, share links, settings) is versioned by the
   * site's stream: `ifMatch` is its revision, the site's ETag. Whoever may not change the site is
   * refused (404, 403) before the revision is compared, so a 412 tells nothing about a site they
   * cannot change (`changeableSite`).
   */
  private async run(command: SiteCommand, caller: Caller, ifMatch?: number): Promise<void> {
    if (ifMatch !== undefined) {
      const refusal = changeableSite(command, (await this.commands.load(siteStream(command.siteId), siteDecider)).state);
      if (refusal instanceof DomainError) throw refusal;
    }
    await this.commands.run(siteStream(command.siteId), siteDecider, command, { caller }, { ifMatch });
  }

  private now(): string {
    return this.commands.now().toISOString();
  }
}
