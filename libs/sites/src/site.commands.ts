import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import { newId } from '../../platform/src/ids';
import { atLeast, type OrganizationRole } from '../../platform/src/permissions';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { SITE_DOMAINS, SITE_ORGANIZATIONS, SITE_SPACES, type SiteDomains, type SiteOrganizations, type SiteSpaces } from './sites-ports.port';
import { validateAdaptiveSchema } from './site.adaptive';
import { parseCondition } from './site.conditions';
import { siteDecider, siteHostnameDecider, siteHostnameStream, siteStream, type Position, type SiteCommand } from './site.decider';
import { NEW_SPACE, type SiteChanges, type SiteShareLinkChanges, type SiteType, type SiteVisibility } from './site.events';
import { KeyedMutex } from '../../platform/src/keyed-mutex';

/** A path segment from a title: lower case letters, digits and single hyphens; `space` when nothing is left. */
export function pathOf(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100)
    .replace(/-+$/, '');
  return slug || 'space';
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
  async update(organizationId: string, siteId: string, changes: SiteChanges, defaults: { defaultSiteSpace?: string; defaultSiteSection?: string }, caller: Caller): Promise<void> {
    const allowed = await this.isAdmin(organizationId, caller);
    const apply = () => this.run({ kind: 'UpdateSite', siteId, organizationId, changes, ...defaults, allowed, now: this.now() }, caller);
    if (changes.hostname === undefined || !allowed) return apply();
    await this.hostnameChanges.run(siteId, async () => {
      const { state } = await this.commands.load(siteStream(siteId), siteDecider);
      // No site of this organization: the decider answers 404, and no hostname is claimed for it meanwhile.
      if (!state.site || state.site.deleted || state.site.organizationId !== organizationId) return apply();
      const previous = state.site.hostname;
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

  async publish(organizationId: string, siteId: string, published: boolean, caller: Caller): Promise<void> {
    await this.run({ kind: 'PublishSite', siteId, organizationId, published, allowed: await this.isAdmin(organizationId, caller), now: this.now() }, caller);
  }

  /** A deleted site lets its hostname go. */
  async delete(organizationId: string, siteId: string, caller: Caller): Promise<void> {
    const allowed = await this.isAdmin(organizationId, caller);
    const hostname = await this.hostnameOf(siteId);
    await this.run({ kind: 'DeleteSite', siteId, organizationId, allowed, now: this.now() }, caller);
    if (hostname !== null) await this.release(hostname, siteId, caller);
  }

  // ---- share links and visitor authentication -------------------------------------------------------

  async createShareLink(organizationId: string, siteId: string, name: string | undefined, caller: Caller): Promise<string> {
    const shareLinkId = newId();
    await this.run({ kind: 'CreateShareLink', siteId, organizationId, shareLinkId, key: newId(32), name: name ?? '', by: (caller as { userId: string }).userId, allowed: await this.isAdmin(organizationId, caller), now: this.now() }, caller);
    return shareLinkId;
  }

  async updateShareLink(organizationId: string, siteId: string, shareLinkId: string, changes: SiteShareLinkChanges, caller: Caller): Promise<void> {
    await this.run({ kind: 'UpdateShareLink', siteId, organizationId, shareLinkId, changes, allowed: await this.isAdmin(organizationId, caller), now: this.now() }, caller);
  }

  async deleteShareLink(organizationId: string, siteId: string, shareLinkId: string, caller: Caller): Promise<void> {
    await this.run({ kind: 'DeleteShareLink', siteId, organizationId, shareLinkId, allowed: await this.isAdmin(organizationId, caller), now: this.now() }, caller);
  }

  async configureVisitorAuth(organizationId: string, siteId: string, settings: { jwksUrl: string | null; issuer: string | null }, caller: Caller): Promise<void> {
    await this.run({ kind: 'ConfigureVisitorAuth', siteId, organizationId, ...settings, allowed: await this.isAdmin(organizationId, caller), now: this.now() }, caller);
  }

  /** A new HS256 key: tokens signed with the old one stop working. */
  async rotateVisitorKey(organizationId: string, siteId: string, caller: Caller): Promise<void> {
    await this.run({ kind: 'RotateVisitorKey', siteId, organizationId, allowed: await this.isAdmin(organizationId, caller), now: this.now() }, caller);
  }

  /** The site spaces of a space that is no longer live go (the site-spaces reactor; not found when the site is gone). */
  async removeSpace(organizationId: string, siteId: string, spaceId: string, caller: Caller): Promise<void> {
    await this.run({ kind: 'RemoveSpaceFromSite', siteId, organizationId, spaceId, allowed: true, now: this.now() }, caller);
  }

  async addSection(organizationId: string, siteId: string, body: { spaceId: string; title?: string; icon?: string }, caller: Caller): Promise<string> {
    const allowed = await this.isAdmin(organizationId, caller);
    const space = await this.space(organizationId, body.spaceId);
    const sectionId = newId();
    const title = body.title ?? space.title;
    await this.run({ kind: 'AddSection', siteId, organizationId, sectionId, title, icon: body.icon ?? null, path: pathOf(title), siteSpace: { siteSpaceId: newId(), spaceId: space.id, path: pathOf(space.title) }, allowed, now: this.now() }, caller);
    return sectionId;
  }

  async updateSection(organizationId: string, siteId: string, sectionId: string, changes: { title?: string; path?: string; icon?: string | null; description?: string | null; condition?: string | null }, defaultSiteSpace: string | undefined, caller: Caller): Promise<void> {
    if (typeof changes.condition === 'string') parseCondition(changes.condition);
    await this.run({ kind: 'UpdateSection', siteId, organizationId, sectionId, changes, ...(defaultSiteSpace !== undefined ? { defaultSiteSpace } : {}), allowed: await this.isAdmin(organizationId, caller), now: this.now() }, caller);
  }

  async removeSection(organizationId: string, siteId: string, sectionId: string, caller: Caller): Promise<void> {
    await this.run({ kind: 'RemoveSection', siteId, organizationId, sectionId, allowed: await this.isAdmin(organizationId, caller), now: this.now() }, caller);
  }

  async moveSection(organizationId: string, siteId: string, sectionId: string, position: Position, caller: Caller): Promise<void> {
    await this.run({ kind: 'MoveSection', siteId, organizationId, sectionId, position, allowed: await this.isAdmin(organizationId, caller), now: this.now() }, caller);
  }

  async addSiteSpace(organizationId: string, siteId: string, body: { spaceId: string; sectionId?: string }, caller: Caller): Promise<string> {
    const allowed = await this.isAdmin(organizationId, caller);
    const space = await this.space(organizationId, body.spaceId);
    const siteSpaceId = newId();
    await this.run({ kind: 'AddSiteSpace', siteId, organizationId, siteSpaceId, spaceId: space.id, sectionId: body.sectionId, path: pathOf(space.title), allowed, now: this.now() }, caller);
    return siteSpaceId;
  }

  async updateSiteSpace(organizationId: string, siteId: string, siteSpaceId: string, changes: { path?: string; condition?: string | null; spaceId?: string }, caller: Caller): Promise<void> {
    const allowed = await this.isAdmin(organizationId, caller);
    if (typeof changes.condition === 'string') parseCondition(changes.condition);
    if (changes.spaceId !== undefined) await this.space(organizationId, changes.spaceId);
    await this.run({ kind: 'UpdateSiteSpace', siteId, organizationId, siteSpaceId, changes, allowed, now: this.now() }, caller);
  }

  async removeSiteSpace(organizationId: string, siteId: string, siteSpaceId: string, caller: Caller): Promise<void> {
    await this.run({ kind: 'RemoveSiteSpace', siteId, organizationId, siteSpaceId, allowed: await this.isAdmin(organizationId, caller), now: this.now() }, caller);
  }

  async moveSiteSpace(organizationId: string, siteId: string, siteSpaceId: string, position: Position, caller: Caller): Promise<void> {
    await this.run({ kind: 'MoveSiteSpace', siteId, organizationId, siteSpaceId, position, allowed: await this.isAdmin(organizationId, caller), now: this.now() }, caller);
  }

  async addSectionGroup(organizationId: string, siteId: string, body: { title: string; icon?: string | null; sections?: string[] }, caller: Caller): Promise<string> {
    const groupId = newId();
    await this.run({ kind: 'AddSectionGroup', siteId, organizationId, groupId, title: body.title, icon: body.icon ?? null, sections: body.sections ?? [], allowed: await this.isAdmin(organizationId, caller), now: this.now() }, caller);
    return groupId;
  }

  async updateSectionGroup(organizationId: string, siteId: string, groupId: string, changes: { title?: string; icon?: string | null }, caller: Caller): Promise<void> {
    await this.run({ kind: 'UpdateSectionGroup', siteId, organizationId, groupId, changes, allowed: await this.isAdmin(organizationId, caller), now: this.now() }, caller);
  }

  async removeSectionGroup(organizationId: string, siteId: string, groupId: string, caller: Caller): Promise<void> {
    await this.run({ kind: 'RemoveSectionGroup', siteId, organizationId, groupId, allowed: await this.isAdmin(organizationId, caller), now: this.now() }, caller);
  }

  async groupSection(organizationId: string, siteId: string, groupId: string, sectionId: string, caller: Caller): Promise<void> {
    await this.run({ kind: 'GroupSection', siteId, organizationId, groupId, sectionId, allowed: await this.isAdmin(organizationId, caller), now: this.now() }, caller);
  }

  async ungroupSection(organizationId: string, siteId: string, groupId: string, sectionId: string, caller: Caller): Promise<void> {
    await this.run({ kind: 'UngroupSection', siteId, organizationId, groupId, sectionId, allowed: await this.isAdmin(organizationId, caller), now: this.now() }, caller);
  }

  async moveSectionGroup(organizationId: string, siteId: string, groupId: string, position: Position, caller: Caller): Promise<void> {
    await this.run({ kind: 'MoveSectionGroup', siteId, organizationId, groupId, position, allowed: await this.isAdmin(organizationId, caller), now: this.now() }, caller);
  }

  async sortStructure(organizationId: string, siteId: string, sort: { sections: Array<{ id: string; group: string | null }>; siteSpaces: Record<string, string[]> }, caller: Caller): Promise<void> {
    await this.run({ kind: 'SortStructure', siteId, organizationId, ...sort, allowed: await this.isAdmin(organizationId, caller), now: this.now() }, caller);
  }

  async setAdaptiveSchema(organizationId: string, siteId: string, jsonSchema: Record<string, unknown>, caller: Caller): Promise<void> {
    const allowed = await this.isAdmin(organizationId, caller);
    if (allowed) validateAdaptiveSchema(jsonSchema);
    await this.run({ kind: 'SetAdaptiveSchema', siteId, organizationId, jsonSchema, allowed, now: this.now() }, caller);
  }

  /** A live space of the organization, or 404. */
  private async space(organizationId: string, spaceId: string) {
    const space = await this.spaces.spaceById(spaceId);
    if (!space || space.deleted || space.organizationId !== organizationId) throw DomainError.notFound(`no space ${spaceId} in organization ${organizationId}`);
    return space;
  }

  /** The caller's organization role; 404 for people outside the organization. */
  private async role(organizationId: string, caller: Caller): Promise<OrganizationRole> {
    const standing = caller.kind === 'user' ? await this.organizations.roleOf(organizationId, caller.userId) : null;
    if (!standing?.member) throw DomainError.notFound(`no organization ${organizationId}`);
    return standing.role;
  }

  private async isAdmin(organizationId: string, caller: Caller): Promise<boolean> {
    return (await this.role(organizationId, caller)) === 'admin';
  }

  private async run(command: SiteCommand, caller: Caller): Promise<void> {
    await this.commands.run(siteStream(command.siteId), siteDecider, command, { caller });
  }

  private now(): string {
    return this.commands.now().toISOString();
  }
}
