import { Inject } from '@nestjs/common';
import { Command, CommandBus, CommandHandler } from '@nestjs/cqrs';
import { DomainError } from '#platform/errors';
import { ID_PATTERN, newId } from '#platform/ids';
import type { OrganizationRole } from '#platform/permissions';
import { userOf, type Caller } from '#platform/http/auth';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { DecidingHandler } from '#runtime/command-handler';
import { SPACE_ORGANIZATIONS, SPACE_TEAMS, type SpaceOrganizations, type SpaceTeams } from './spaces.needs';
import { placeAmong, positionAtEnd, type PositionRequest } from './ordering';
import { refuseUnlessAccepted, RenumberSiblings, siblingsUnder } from './siblings';
import { SpaceAccess } from './space.access';
import { spaceDecider, spaceStream, type AccessManagementCommand, type SpaceCommand, type SpaceState } from './space.decider';
import type { EditMode, SpaceChanges, SpaceLanguage } from './space.events';
import { collectionRole, contentRole } from './space.permissions';

/*
 * The space commands: each handler reads what the rule needs from the read models (the caller's
 * role through the collection tree, sibling positions), then lets the space stream decide.
 */

/**
 * `POST /orgs/{organizationId}/spaces`: at the end of its parent (after its spaces and
 * collections); `in-collection` inside a collection, else `private`. A new space is empty.
 * Answers the new space's id.
 */
export class CreateSpace extends Command<string> {
  constructor(
    readonly organizationId: string,
    readonly body: { title?: string; emoji?: string | null; parent?: string | null; language?: SpaceLanguage; editMode?: EditMode },
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(CreateSpace)
export class CreateSpaceHandler extends DecidingHandler {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: SpaceAccess,
  ) {
    super();
  }

  async execute({ organizationId, body, caller }: CreateSpace): Promise<string> {
    const userId = userOf(caller).userId;
    // Without teams: the role to create here is the collection role, which takes no team grants.
    const standing = await this.access.requireMember(organizationId, caller, []);
    const parent = body.parent ?? null;
    const chain = parent === null ? [] : await this.access.destination(organizationId, parent);
    const role = collectionRole(standing, chain);
    const position = positionAtEnd(await siblingsUnder(this.reads, organizationId, parent));
    const spaceId = newId();
    await this.decide(
      spaceStream(spaceId),
      spaceDecider,
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
      { caller },
    );
    return spaceId;
  }
}

/** `PATCH /spaces/{spaceId}` */
export class UpdateSpace extends Command<void> {
  constructor(
    readonly spaceId: string,
    readonly changes: SpaceChanges,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(UpdateSpace)
export class UpdateSpaceHandler extends DecidingHandler {
  constructor(private readonly access: SpaceAccess) {
    super();
  }

  async execute({ spaceId, changes, caller, ifMatch }: UpdateSpace): Promise<void> {
    const { role } = await this.access.space(spaceId, caller);
    await this.decide(
      spaceStream(spaceId),
      spaceDecider,
      { kind: 'UpdateSpace', spaceId, changes, by: { userId: userOf(caller).userId, role }, now: this.now() },
      { caller, ifMatch },
    );
  }
}

/** `DELETE /spaces/{spaceId}`: soft delete, `deletedAt` is set; restorable for 7 days, then purged by SpacePurgeJob. */
export class DeleteSpace extends Command<void> {
  constructor(
    readonly spaceId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(DeleteSpace)
export class DeleteSpaceHandler extends DecidingHandler {
  constructor(private readonly access: SpaceAccess) {
    super();
  }

  async execute({ spaceId, caller, ifMatch }: DeleteSpace): Promise<void> {
    const { role } = await this.access.space(spaceId, caller);
    await this.decide(
      spaceStream(spaceId),
      spaceDecider,
      { kind: 'DeleteSpace', spaceId, by: { userId: userOf(caller).userId, role }, now: this.now() },
      { caller, ifMatch },
    );
  }
}

/** `POST /spaces/{spaceId}/restore` */
export class RestoreSpace extends Command<void> {
  constructor(
    readonly spaceId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(RestoreSpace)
export class RestoreSpaceHandler extends DecidingHandler {
  constructor(private readonly access: SpaceAccess) {
    super();
  }

  async execute({ spaceId, caller, ifMatch }: RestoreSpace): Promise<void> {
    const { role } = await this.access.space(spaceId, caller);
    await this.decide(
      spaceStream(spaceId),
      spaceDecider,
      { kind: 'RestoreSpace', spaceId, by: { userId: userOf(caller).userId, role }, now: this.now() },
      { caller, ifMatch },
    );
  }
}

/**
 * `POST /spaces/{spaceId}/duplicate`: a copy of the space right after it among its siblings: same
 * title, emoji, icon, language, visibility, edit mode, default level and merge rules (share links
 * are not copied). Needs read access to the source and role create on its parent (or in the
 * organization at the top level). Answers the copy's id.
 */
export class DuplicateSpace extends Command<string> {
  constructor(
    readonly spaceId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(DuplicateSpace)
export class DuplicateSpaceHandler extends DecidingHandler {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: SpaceAccess,
    private readonly commandBus: CommandBus,
  ) {
    super();
  }

  async execute({ spaceId, caller }: DuplicateSpace): Promise<string> {
    const userId = userOf(caller).userId;
    const { space, standing } = await this.access.space(spaceId, caller);
    if (space.deletedAt !== undefined) throw DomainError.conflict(`space ${spaceId} is deleted; restore it first`);
    const role = collectionRole(standing, await this.access.chain(space.parent));
    const placement = placeAmong(await siblingsUnder(this.reads, space.organizationId, space.parent), {
      after: { kind: 'space', id: spaceId },
    });
    const copyId = newId();
    const command: SpaceCommand = {
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
    };
    // When the copy lands between siblings that share a key, those take new keys first, and only
    // once the copy's own command would be accepted, so a refused duplicate changes nothing.
    if (placement.renumber.length > 0) {
      refuseUnlessAccepted(spaceDecider, command, await this.load(spaceStream(copyId), spaceDecider));
      await this.commandBus.execute(new RenumberSiblings(placement, space.parent, caller));
    }
    await this.decide(spaceStream(copyId), spaceDecider, command, { caller });
    return copyId;
  }
}

/**
 * `POST /spaces/{spaceId}/move`: `parent` a collection of the same organization, null for the top
 * level, absent to stay in the current parent; `position` before and/or after a sibling there,
 * a space or a collection (they share one order).
 */
export class MoveSpace extends Command<void> {
  constructor(
    readonly spaceId: string,
    readonly body: { parent?: string | null; position?: PositionRequest },
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(MoveSpace)
export class MoveSpaceHandler extends DecidingHandler {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: SpaceAccess,
    private readonly commandBus: CommandBus,
  ) {
    super();
  }

  async execute({ spaceId, body, caller, ifMatch }: MoveSpace): Promise<void> {
    const { space, standing, role } = await this.access.space(spaceId, caller);
    const parent = body.parent === undefined ? space.parent : body.parent;
    const chain = parent === null ? [] : await this.access.destination(space.organizationId, parent);
    const placement = placeAmong(
      await siblingsUnder(this.reads, space.organizationId, parent, { kind: 'space', id: spaceId }),
      body.position,
    );
    const command: SpaceCommand = {
      kind: 'MoveSpace',
      spaceId,
      parent,
      position: placement.position,
      by: { userId: userOf(caller).userId, role },
      targetRole: collectionRole(standing, chain),
      now: this.now(),
    };
    // Between siblings that share a key: those take new keys first, and only once the move itself
    // would be accepted (rules and If-Match), so a refused move changes nothing.
    if (placement.renumber.length > 0) {
      refuseUnlessAccepted(spaceDecider, command, await this.load(spaceStream(spaceId), spaceDecider), ifMatch);
      await this.commandBus.execute(new RenumberSiblings(placement, parent, caller));
    }
    await this.decide(spaceStream(spaceId), spaceDecider, command, { caller, ifMatch });
  }
}

/**
 * `POST /spaces/{spaceId}/transfer`: to the top level of another organization where the caller is
 * an admin; it leaves its collection. A target the caller does not belong to is 404 whether or not
 * it exists, as every organization route answers people outside it.
 */
export class TransferSpace extends Command<void> {
  constructor(
    readonly spaceId: string,
    readonly organizationId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(TransferSpace)
export class TransferSpaceHandler extends DecidingHandler {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: SpaceAccess,
    @Inject(SPACE_ORGANIZATIONS) private readonly membership: SpaceOrganizations,
  ) {
    super();
  }

  async execute({ spaceId, organizationId, caller, ifMatch }: TransferSpace): Promise<void> {
    const userId = userOf(caller).userId;
    const { role } = await this.access.space(spaceId, caller);
    const target = await this.membership.roleOf(organizationId, userId);
    const targetMember = target?.member === true;
    const position = targetMember
      ? positionAtEnd(await siblingsUnder(this.reads, organizationId, null, { kind: 'space', id: spaceId }))
      : '';
    await this.decide(
      spaceStream(spaceId),
      spaceDecider,
      {
        kind: 'TransferSpace',
        spaceId,
        organizationId,
        position,
        by: { userId, role },
        targetMember,
        targetOrganizationRole: targetMember ? contentRole(target.role) : null,
        now: this.now(),
      },
      { caller, ifMatch },
    );
  }
}

/*
 * Share links and team access live in the space's stream: `ifMatch` is its revision, the space's
 * ETag.
 */

/** `POST /spaces/{spaceId}/share-links` (extension): answers the new link's key. */
export class CreateShareLink extends Command<string> {
  constructor(
    readonly spaceId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(CreateShareLink)
export class CreateShareLinkHandler extends DecidingHandler {
  constructor(private readonly access: SpaceAccess) {
    super();
  }

  async execute({ spaceId, caller }: CreateShareLink): Promise<string> {
    const { role } = await this.access.space(spaceId, caller);
    const shareKey = newId(32);
    await this.decide(
      spaceStream(spaceId),
      spaceDecider,
      { kind: 'CreateShareLink', spaceId, shareKey, by: { userId: userOf(caller).userId, role }, now: this.now() },
      { caller },
    );
    return shareKey;
  }
}

/** `DELETE /spaces/{spaceId}/share-links/{shareKey}` (extension) */
export class RevokeShareLink extends Command<void> {
  constructor(
    readonly spaceId: string,
    readonly shareKey: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(RevokeShareLink)
export class RevokeShareLinkHandler extends DecidingHandler {
  constructor(private readonly access: SpaceAccess) {
    super();
  }

  async execute({ spaceId, shareKey, caller, ifMatch }: RevokeShareLink): Promise<void> {
    const { role } = await this.access.space(spaceId, caller);
    const command: AccessManagementCommand = {
      kind: 'RevokeShareLink',
      spaceId,
      shareKey,
      by: { userId: userOf(caller).userId, role },
      now: this.now(),
    };
    await this.decide(spaceStream(spaceId), spaceDecider, command, { caller, ifMatch });
  }
}

/**
 * `PUT /spaces/{spaceId}/teams/{teamId}` (extension): admins of the space grant `role` to a live
 * team of its organization (checked in the teams read model); the same role again changes nothing.
 */
export class SetSpaceTeamAccess extends Command<void> {
  constructor(
    readonly spaceId: string,
    readonly teamId: string,
    readonly role: Exclude<OrganizationRole, null>,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(SetSpaceTeamAccess)
export class SetSpaceTeamAccessHandler extends DecidingHandler {
  constructor(
    private readonly access: SpaceAccess,
    @Inject(SPACE_TEAMS) private readonly teams: SpaceTeams,
  ) {
    super();
  }

  async execute({ spaceId, teamId, role, caller, ifMatch }: SetSpaceTeamAccess): Promise<void> {
    const { space, role: callerRole } = await this.access.space(spaceId, caller);
    const live = ID_PATTERN.test(teamId) && (await this.teams.liveTeam(space.organizationId, teamId));
    const command: AccessManagementCommand = {
      kind: 'SetSpaceTeamAccess',
      spaceId,
      teamId,
      role,
      teamOrganizationId: live ? space.organizationId : null,
      by: { userId: userOf(caller).userId, role: callerRole },
    };
    await this.decide(spaceStream(spaceId), spaceDecider, command, { caller, ifMatch });
  }
}

/** `DELETE /spaces/{spaceId}/teams/{teamId}` (extension): 404 when the team has no access to the space. */
export class RemoveSpaceTeamAccess extends Command<void> {
  constructor(
    readonly spaceId: string,
    readonly teamId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(RemoveSpaceTeamAccess)
export class RemoveSpaceTeamAccessHandler extends DecidingHandler {
  constructor(private readonly access: SpaceAccess) {
    super();
  }

  async execute({ spaceId, teamId, caller, ifMatch }: RemoveSpaceTeamAccess): Promise<void> {
    const { role } = await this.access.space(spaceId, caller);
    const command: AccessManagementCommand = {
      kind: 'RemoveSpaceTeamAccess',
      spaceId,
      teamId,
      by: { userId: userOf(caller).userId, role },
    };
    await this.decide(spaceStream(spaceId), spaceDecider, command, { caller, ifMatch });
  }
}

/*
 * The collection cascades' steps (collection.reactors.ts), dispatched by the reaction: stamped with
 * the reactor's caller, decided without a permission check, each only if what it reacts to still
 * holds (the decider checks it), so a redelivered event appends nothing.
 */

/** Its collection was deleted: the space moves to `parent` (at `position`) if it is still in `from`. */
export class ReparentSpace extends Command<void> {
  constructor(
    readonly spaceId: string,
    readonly from: string,
    readonly parent: string | null,
    readonly position: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(ReparentSpace)
export class ReparentSpaceHandler extends DecidingHandler {
  async execute({ spaceId, from, parent, position, caller }: ReparentSpace): Promise<void> {
    await this.decide(
      spaceStream(spaceId),
      spaceDecider,
      { kind: 'ReparentSpace', spaceId, from, parent, position, now: this.now() },
      { caller },
    );
  }
}

/** Its collection was transferred to `organizationId`: the space follows, staying in `parent`. */
export class TransferSpaceWithCollection extends Command<void> {
  constructor(
    readonly spaceId: string,
    readonly organizationId: string,
    readonly parent: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(TransferSpaceWithCollection)
export class TransferSpaceWithCollectionHandler extends DecidingHandler {
  async execute({ spaceId, organizationId, parent, caller }: TransferSpaceWithCollection): Promise<void> {
    await this.decide(
      spaceStream(spaceId),
      spaceDecider,
      { kind: 'TransferSpaceWithCollection', spaceId, organizationId, parent, now: this.now() },
      { caller },
    );
  }
}

export const spaceCommandHandlers = [
  CreateSpaceHandler,
  UpdateSpaceHandler,
  DeleteSpaceHandler,
  RestoreSpaceHandler,
  DuplicateSpaceHandler,
  MoveSpaceHandler,
  TransferSpaceHandler,
  CreateShareLinkHandler,
  RevokeShareLinkHandler,
  SetSpaceTeamAccessHandler,
  RemoveSpaceTeamAccessHandler,
  ReparentSpaceHandler,
  TransferSpaceWithCollectionHandler,
];
