import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../../platform/src/errors';
import { ID_PATTERN, newId } from '../../platform/src/ids';
import type { OrganizationRole } from '../../platform/src/permissions';
import { userOf, type Caller } from '../../platform/src/http/auth';
import { READ_STORE, type ReadStore } from '../../read-store/src/read-store.port';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { SPACE_ORGANIZATIONS, type SpaceOrganizations } from './space-organizations.port';
import { SPACE_TEAMS, type SpaceTeams } from './space-teams.port';
import { placeAmong, positionAtEnd, type Placement, type PositionRequest } from './ordering';
import { renumberSiblings, siblingsUnder } from './siblings';
import { SpaceAccess } from './space.access';
import { accessManagementRefusal, spaceDecider, spaceStream, type AccessManagementCommand, type SpaceCommand } from './space.decider';
import type { EditMode, SpaceChanges, SpaceLanguage } from './space.events';
import { collectionRole, contentRole } from './space.permissions';

/**
 * The space commands: each reads what the rule needs from the read models (the caller's role
 * through the collection tree, sibling positions), then lets the space stream decide.
 */
@Injectable()
export class SpaceCommands {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: SpaceAccess,
    @Inject(SPACE_ORGANIZATIONS) private readonly membership: SpaceOrganizations,
    @Inject(SPACE_TEAMS) private readonly teams: SpaceTeams,
  ) {}

  private now(): string {
    return this.commands.now().toISOString();
  }

  private run(spaceId: string, command: SpaceCommand, caller: Caller, ifMatch?: number) {
    return this.commands.run(spaceStream(spaceId), spaceDecider, command, { caller }, { ifMatch });
  }

  /**
   * Share links and team access live in the space's stream: `ifMatch` is its revision, the space's
   * ETag. Whoever may not manage them is refused (404, 403) before the revision is compared, so a
   * 412 answers only those who may make the change (`accessManagementRefusal`).
   */
  private async manageAccess(command: AccessManagementCommand, caller: Caller, ifMatch?: number) {
    if (ifMatch !== undefined) {
      const refusal = accessManagementRefusal(command, (await this.commands.load(spaceStream(command.spaceId), spaceDecider)).state);
      if (refusal) throw refusal;
    }
    return this.run(command.spaceId, command, caller, ifMatch);
  }

  /**
   * Places a space by `placement`: when it lands between siblings that share a key, those siblings
   * first take new keys, and only once the space's own command would be accepted (rules and
   * If-Match), so a refused move changes nothing.
   */
  private async place(spaceId: string, parent: string | null, placement: Placement, command: SpaceCommand, caller: Caller, ifMatch?: number) {
    if (placement.renumber.length > 0) {
      const { state, revision } = await this.commands.load(spaceStream(spaceId), spaceDecider);
      if (ifMatch !== undefined && ifMatch !== revision) throw DomainError.preconditionFailed(`the resource has changed: If-Match names revision ${ifMatch} but it is at ${revision ?? 'none'}`);
      const decided = spaceDecider.decide(command, state);
      if (decided instanceof DomainError) throw decided;
      await renumberSiblings(this.commands, placement, parent, caller);
    }
    return this.run(spaceId, command, caller, ifMatch);
  }

  /**
   * `POST /orgs/{organizationId}/spaces`: at the end of its parent (after its spaces and
   * collections); `in-collection` inside a collection, else `private`. A new space is empty.
   */
  async create(
    organizationId: string,
    body: { title?: string; emoji?: string | null; parent?: string | null; language?: SpaceLanguage; editMode?: EditMode },
    caller: Caller,
  ): Promise<string> {
    const userId = userOf(caller).userId;
    // Without teams: the role to create here is the collection role, which takes no team grants.
    const standing = await this.access.requireMember(organizationId, caller, []);
    const parent = body.parent ?? null;
    const chain = parent === null ? [] : await this.access.destination(organizationId, parent);
    const role = collectionRole(standing, chain);
    const position = positionAtEnd(await siblingsUnder(this.reads, organizationId, parent));
    const spaceId = newId();
    await this.run(
      spaceId,
      {
        kind: 'CreateSpace',
        spaceId,
        organizationId,
        title: body.title ?? 'Untitled',
        emoji: body.emoji ?? null,
        ...(body.language !== undefined ? { language: body.language } : {}),
        visibility: parent === null ? 'private' : 'in-collection',
        editMode: body.editMode ?? 'live',
        defaultLevel: null,
        parent,
        position,
        by: { userId, role },
        now: this.now(),
      },
      caller,
    );
    return spaceId;
  }

  async update(spaceId: string, changes: SpaceChanges, caller: Caller, ifMatch?: number): Promise<void> {
    const { role } = await this.access.space(spaceId, caller);
    await this.run(spaceId, { kind: 'UpdateSpace', spaceId, changes, by: { userId: userOf(caller).userId, role }, now: this.now() }, caller, ifMatch);
  }

  /** Soft delete: `deletedAt` is set; restorable for 7 days, then purged by SpacePurgeJob. */
  async delete(spaceId: string, caller: Caller, ifMatch?: number): Promise<void> {
    const { role } = await this.access.space(spaceId, caller);
    await this.run(spaceId, { kind: 'DeleteSpace', spaceId, by: { userId: userOf(caller).userId, role }, now: this.now() }, caller, ifMatch);
  }

  async restore(spaceId: string, caller: Caller, ifMatch?: number): Promise<void> {
    const { role } = await this.access.space(spaceId, caller);
    await this.run(spaceId, { kind: 'RestoreSpace', spaceId, by: { userId: userOf(caller).userId, role }, now: this.now() }, caller, ifMatch);
  }

  /**
   * A copy of the space right after it among its siblings: same title, emoji, icon, language,
   * visibility, edit mode, default level and merge rules (share links are not copied). Needs read access to the source and
   * role create on its parent (or in the organization at the top level).
   */
  async duplicate(spaceId: string, caller: Caller): Promise<string> {
    const userId = userOf(caller).userId;
    const { space, standing } = await this.access.space(spaceId, caller);
    if (space.deletedAt !== undefined) throw DomainError.conflict(`space ${spaceId} is deleted; restore it first`);
    const role = collectionRole(standing, await this.access.chain(space.parent));
    const placement = placeAmong(await siblingsUnder(this.reads, space.organizationId, space.parent), { after: { kind: 'space', id: spaceId } });
    const copyId = newId();
    await this.place(
      copyId,
      space.parent,
      placement,
      {
        kind: 'CreateSpace',
        spaceId: copyId,
        organizationId: space.organizationId,
        title: space.title,
        emoji: space.emoji,
        ...(space.icon ? { icon: space.icon } : {}),
        ...(space.language ? { language: space.language } : {}),
        ...(space.mergeRules ? { mergeRules: space.mergeRules } : {}),
        visibility: space.visibility,
        editMode: space.editMode,
        defaultLevel: space.defaultLevel,
        parent: space.parent,
        position: placement.position,
        duplicatedFrom: spaceId,
        by: { userId, role },
        now: this.now(),
      },
      caller,
    );
    return copyId;
  }

  /**
   * `POST /spaces/{spaceId}/move`: `parent` a collection of the same organization, null for the top
   * level, absent to stay in the current parent; `position` before and/or after a sibling there,
   * a space or a collection (they share one order).
   */
  async move(spaceId: string, body: { parent?: string | null; position?: PositionRequest }, caller: Caller, ifMatch?: number): Promise<void> {
    const { space, standing, role } = await this.access.space(spaceId, caller);
    const parent = body.parent === undefined ? space.parent : body.parent;
    const chain = parent === null ? [] : await this.access.destination(space.organizationId, parent);
    const placement = placeAmong(await siblingsUnder(this.reads, space.organizationId, parent, { kind: 'space', id: spaceId }), body.position);
    await this.place(
      spaceId,
      parent,
      placement,
      { kind: 'MoveSpace', spaceId, parent, position: placement.position, by: { userId: userOf(caller).userId, role }, targetRole: collectionRole(standing, chain), now: this.now() },
      caller,
      ifMatch,
    );
  }

  /**
   * To the top level of another organization where the caller is an admin; it leaves its
   * collection. A target the caller does not belong to is 404 whether or not it exists, as every
   * organization route answers people outside it.
   */
  async transfer(spaceId: string, organizationId: string, caller: Caller, ifMatch?: number): Promise<void> {
    const userId = userOf(caller).userId;
    const { role } = await this.access.space(spaceId, caller);
    const target = await this.membership.roleOf(organizationId, userId);
    const targetMember = target?.member === true;
    const position = targetMember ? positionAtEnd(await siblingsUnder(this.reads, organizationId, null, { kind: 'space', id: spaceId })) : '';
    await this.run(
      spaceId,
      { kind: 'TransferSpace', spaceId, organizationId, position, by: { userId, role }, targetMember, targetOrganizationRole: targetMember ? contentRole(target.role) : null, now: this.now() },
      caller,
      ifMatch,
    );
  }

  async createShareLink(spaceId: string, caller: Caller): Promise<string> {
    const { role } = await this.access.space(spaceId, caller);
    const shareKey = newId(32);
    await this.run(spaceId, { kind: 'CreateShareLink', spaceId, shareKey, by: { userId: userOf(caller).userId, role }, now: this.now() }, caller);
    return shareKey;
  }

  async revokeShareLink(spaceId: string, shareKey: string, caller: Caller, ifMatch?: number): Promise<void> {
    const { role } = await this.access.space(spaceId, caller);
    await this.manageAccess({ kind: 'RevokeShareLink', spaceId, shareKey, by: { userId: userOf(caller).userId, role }, now: this.now() }, caller, ifMatch);
  }

  /**
   * `PUT /spaces/{spaceId}/teams/{teamId}` (extension): admins of the space grant `role` to a live
   * team of its organization (checked in the teams read model); the same role again changes nothing.
   */
  async setTeamAccess(spaceId: string, teamId: string, role: Exclude<OrganizationRole, null>, caller: Caller, ifMatch?: number): Promise<void> {
    const { space, role: callerRole } = await this.access.space(spaceId, caller);
    const live = ID_PATTERN.test(teamId) && (await this.teams.liveTeam(space.organizationId, teamId));
    await this.manageAccess(
      { kind: 'SetSpaceTeamAccess', spaceId, teamId, role, teamOrganizationId: live ? space.organizationId : null, by: { userId: userOf(caller).userId, role: callerRole } },
      caller,
      ifMatch,
    );
  }

  /** `DELETE /spaces/{spaceId}/teams/{teamId}` (extension): 404 when the team has no access to the space. */
  async removeTeamAccess(spaceId: string, teamId: string, caller: Caller, ifMatch?: number): Promise<void> {
    const { role } = await this.access.space(spaceId, caller);
    await this.manageAccess({ kind: 'RemoveSpaceTeamAccess', spaceId, teamId, by: { userId: userOf(caller).userId, role } }, caller, ifMatch);
  }
}
