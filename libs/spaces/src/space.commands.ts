import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../../platform/src/errors';
import { ID_PATTERN, newId } from '../../platform/src/ids';
import type { OrganizationRole } from '../../platform/src/permissions';
import { userOf, type Caller } from '../../platform/src/http/auth';
import { READ_STORE, type ReadStore } from '../../read-store/src/read-store.port';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { SPACE_ORGANIZATIONS, type SpaceOrganizations } from './space-organizations.port';
import { SPACE_TEAMS, type SpaceTeams } from './space-teams.port';
import { placeAmong, positionAtEnd, type Placement, type PositionRequest, type Sibling } from './ordering';
import { readAll } from '../../read-store/src/read-all';
import { SpaceAccess } from './space.access';
import { spaceDecider, spaceStream, type SpaceCommand } from './space.decider';
import type { SpaceChanges } from './space.events';
import { collectionRole, contentRole } from './space.permissions';
import { SPACES, type SpaceDoc } from './space.projections';

/** The spaces under one parent (top level: null) of an organization, in (position, id) order, purged ones left out. */
export async function siblingSpaces(reads: ReadStore, organizationId: string, parent: string | null, except?: string): Promise<Sibling[]> {
  const spaces = await readAll<SpaceDoc>(reads, SPACES, { organizationId, parentKey: parent ?? '', purgedAt: { $exists: false } }, { position: 1 });
  return spaces.filter((space) => space._id !== except).map((space) => ({ id: space._id, position: space.position }));
}

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
      const now = this.now();
      const outcomes = await Promise.all(
        placement.renumber.map((entry) =>
          this.commands.run(spaceStream(entry.id), spaceDecider, { kind: 'RepositionSpace', spaceId: entry.id, parent, from: entry.from, position: entry.position, now }, { caller }, { wait: false }),
        ),
      );
      const positions = outcomes.flatMap((outcome) => (outcome.position !== undefined ? [outcome.position] : []));
      await this.commands.waitFor(positions.reduce<bigint | undefined>((last, position) => (last === undefined || position > last ? position : last), undefined), caller.requestId);
    }
    return this.run(spaceId, command, caller, ifMatch);
  }

  /** `POST /orgs/{organizationId}/spaces`: at the end of its parent; `in-collection` inside a collection, else `private`. */
  async create(organizationId: string, body: { title?: string; emoji?: string | null; parent?: string | null }, caller: Caller): Promise<string> {
    const userId = userOf(caller).userId;
    // Without teams: the role to create here is the collection role, which takes no team grants.
    const standing = await this.access.requireMember(organizationId, caller, []);
    const parent = body.parent ?? null;
    const chain = parent === null ? [] : await this.access.destination(organizationId, parent);
    const role = collectionRole(standing, chain);
    const position = positionAtEnd(await siblingSpaces(this.reads, organizationId, parent));
    const spaceId = newId();
    await this.run(
      spaceId,
      {
        kind: 'CreateSpace',
        spaceId,
        organizationId,
        title: body.title ?? 'Untitled',
        emoji: body.emoji ?? null,
        visibility: parent === null ? 'private' : 'in-collection',
        editMode: 'live',
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
   * A copy of the space right after it among its siblings: same title, emoji, visibility, edit
   * mode and default level (share links are not copied). Needs read access to the source and
   * role create on its parent (or in the organization at the top level).
   */
  async duplicate(spaceId: string, caller: Caller): Promise<string> {
    const userId = userOf(caller).userId;
    const { space, standing } = await this.access.space(spaceId, caller);
    if (space.deletedAt !== undefined) throw DomainError.conflict(`space ${spaceId} is deleted; restore it first`);
    const role = collectionRole(standing, await this.access.chain(space.parent));
    const placement = placeAmong(await siblingSpaces(this.reads, space.organizationId, space.parent), { after: spaceId }, 'space');
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
   * level, absent to stay in the current parent; `position` before and/or after a sibling space there.
   */
  async move(spaceId: string, body: { parent?: string | null; position?: PositionRequest }, caller: Caller, ifMatch?: number): Promise<void> {
    const { space, standing, role } = await this.access.space(spaceId, caller);
    const parent = body.parent === undefined ? space.parent : body.parent;
    const chain = parent === null ? [] : await this.access.destination(space.organizationId, parent);
    const placement = placeAmong(await siblingSpaces(this.reads, space.organizationId, parent, spaceId), body.position, 'space');
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
    const position = targetMember ? positionAtEnd(await siblingSpaces(this.reads, organizationId, null, spaceId)) : '';
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

  async revokeShareLink(spaceId: string, shareKey: string, caller: Caller): Promise<void> {
    const { role } = await this.access.space(spaceId, caller);
    await this.run(spaceId, { kind: 'RevokeShareLink', spaceId, shareKey, by: { userId: userOf(caller).userId, role }, now: this.now() }, caller);
  }

  /**
   * `PUT /spaces/{spaceId}/teams/{teamId}` (extension): admins of the space grant `role` to a live
   * team of its organization (checked in the teams read model); the same role again changes nothing.
   */
  async setTeamAccess(spaceId: string, teamId: string, role: Exclude<OrganizationRole, null>, caller: Caller): Promise<void> {
    const { space, role: callerRole } = await this.access.space(spaceId, caller);
    const live = ID_PATTERN.test(teamId) && (await this.teams.liveTeam(space.organizationId, teamId));
    await this.run(
      spaceId,
      { kind: 'SetSpaceTeamAccess', spaceId, teamId, role, teamOrganizationId: live ? space.organizationId : null, by: { userId: userOf(caller).userId, role: callerRole } },
      caller,
    );
  }

  /** `DELETE /spaces/{spaceId}/teams/{teamId}` (extension): 404 when the team has no access to the space. */
  async removeTeamAccess(spaceId: string, teamId: string, caller: Caller): Promise<void> {
    const { role } = await this.access.space(spaceId, caller);
    await this.run(spaceId, { kind: 'RemoveSpaceTeamAccess', spaceId, teamId, by: { userId: userOf(caller).userId, role } }, caller);
  }
}
