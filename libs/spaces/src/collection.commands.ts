import { Inject } from '@nestjs/common';
import { Command, CommandBus, CommandHandler } from '@nestjs/cqrs';
import { DomainError } from '#platform/errors';
import { newId } from '#platform/ids';
import { userOf, type Caller } from '#platform/http/auth';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { DecidingHandler } from '#runtime/command-handler';
import { SPACE_ORGANIZATIONS, type SpaceOrganizations } from './spaces.needs';
import { placeAmong, positionAtEnd, type PositionRequest } from './ordering';
import { refuseUnlessAccepted, RenumberSiblings, siblingsUnder } from './siblings';
import { SpaceAccess } from './space.access';
import { collectionDecider, collectionStream, type CollectionCommand } from './collection.decider';
import type { CollectionChanges } from './space.events';
import { collectionRole, contentRole } from './space.permissions';

/*
 * The collection commands: each handler reads the caller's role through the collection tree and the
 * sibling positions from the read models, then lets the collection stream decide.
 */

/** `POST /orgs/{organizationId}/collections`: at the end of its parent, after its spaces and collections (role create there, or in the organization). Answers the new id. */
export class CreateCollection extends Command<string> {
  constructor(
    readonly organizationId: string,
    readonly body: { title?: string; parent?: string | null },
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(CreateCollection)
export class CreateCollectionHandler extends DecidingHandler {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: SpaceAccess,
  ) {
    super();
  }

  async execute({ organizationId, body, caller }: CreateCollection): Promise<string> {
    const userId = userOf(caller).userId;
    // Without teams: a collection role takes no team grants.
    const standing = await this.access.requireMember(organizationId, caller, []);
    const parent = body.parent ?? null;
    const chain = parent === null ? [] : await this.access.destination(organizationId, parent);
    const position = positionAtEnd(await siblingsUnder(this.reads, organizationId, parent));
    const collectionId = newId();
    await this.decide(
      collectionStream(collectionId),
      collectionDecider,
      {
        kind: 'CreateCollection',
        collectionId,
        organizationId,
        title: body.title ?? 'Untitled',
        parent,
        position,
        by: { userId, role: collectionRole(standing, chain) },
        now: this.now(),
      },
      { caller },
    );
    return collectionId;
  }
}

/** `PATCH /collections/{collectionId}` */
export class UpdateCollection extends Command<void> {
  constructor(
    readonly collectionId: string,
    readonly changes: CollectionChanges,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(UpdateCollection)
export class UpdateCollectionHandler extends DecidingHandler {
  constructor(private readonly access: SpaceAccess) {
    super();
  }

  async execute({ collectionId, changes, caller, ifMatch }: UpdateCollection): Promise<void> {
    const { role } = await this.access.collection(collectionId, caller);
    await this.decide(
      collectionStream(collectionId),
      collectionDecider,
      { kind: 'UpdateCollection', collectionId, changes, by: { userId: userOf(caller).userId, role }, now: this.now() },
      { caller, ifMatch },
    );
  }
}

/**
 * `POST /collections/{collectionId}/move`: into another collection of the organization (not into
 * itself or a descendant: 400), null for the top level, absent to stay; `position` before and/or
 * after a sibling there, a collection or a space (they share one order).
 */
export class MoveCollection extends Command<void> {
  constructor(
    readonly collectionId: string,
    readonly body: { parent?: string | null; position?: PositionRequest },
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(MoveCollection)
export class MoveCollectionHandler extends DecidingHandler {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: SpaceAccess,
    private readonly commandBus: CommandBus,
  ) {
    super();
  }

  async execute({ collectionId, body, caller, ifMatch }: MoveCollection): Promise<void> {
    const { collection, standing, role } = await this.access.collection(collectionId, caller);
    const parent = body.parent === undefined ? collection.parent : body.parent;
    const chain = parent === null ? [] : await this.access.destination(collection.organizationId, parent);
    const placement = placeAmong(
      await siblingsUnder(this.reads, collection.organizationId, parent, { kind: 'collection', id: collectionId }),
      body.position,
    );
    const command: CollectionCommand = {
      kind: 'MoveCollection',
      collectionId,
      parent,
      ancestorsOfParent: chain.map((ancestor) => ancestor._id),
      position: placement.position,
      by: { userId: userOf(caller).userId, role },
      targetRole: collectionRole(standing, chain),
      now: this.now(),
    };
    if (placement.renumber.length > 0) {
      // Siblings sharing a key take new ones first, and only once the move itself would be accepted.
      refuseUnlessAccepted(collectionDecider, command, await this.load(collectionStream(collectionId), collectionDecider), ifMatch);
      await this.commandBus.execute(new RenumberSiblings(placement, parent, caller));
    }
    await this.decide(collectionStream(collectionId), collectionDecider, command, { caller, ifMatch });
  }
}

/**
 * `POST /collections/{collectionId}/transfer`: the collection goes to the top level of the target
 * organization (where the caller must be an admin) with everything inside it: its descendant
 * collections keep their parents, its spaces (deleted ones too) stay in their collections; the
 * collection reactor (collection.reactors.ts) moves them, and the answer waits for it. A target the
 * caller does not belong to is 404 whether or not it exists.
 */
export class TransferCollection extends Command<void> {
  constructor(
    readonly collectionId: string,
    readonly organizationId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(TransferCollection)
export class TransferCollectionHandler extends DecidingHandler {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: SpaceAccess,
    @Inject(SPACE_ORGANIZATIONS) private readonly membership: SpaceOrganizations,
  ) {
    super();
  }

  async execute({ collectionId, organizationId, caller, ifMatch }: TransferCollection): Promise<void> {
    const userId = userOf(caller).userId;
    const { role } = await this.access.collection(collectionId, caller);
    const target = await this.membership.roleOf(organizationId, userId);
    const targetMember = target?.member === true;
    const position = targetMember
      ? positionAtEnd(await siblingsUnder(this.reads, organizationId, null, { kind: 'collection', id: collectionId }))
      : '';
    await this.decide(
      collectionStream(collectionId),
      collectionDecider,
      {
        kind: 'TransferCollection',
        collectionId,
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

/**
 * `DELETE /collections/{collectionId}`: what was inside moves up one level. Its spaces (deleted
 * ones too, so that a restore finds a live parent) and collections go to the deleted collection's
 * parent (the top level when it had none), after that parent's existing children and in their
 * own order: the collection reactor does it in reaction to `CollectionDeleted` (and moves up
 * whatever arrives in a deleted collection later), and the answer waits for it.
 */
export class DeleteCollection extends Command<void> {
  constructor(
    readonly collectionId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(DeleteCollection)
export class DeleteCollectionHandler extends DecidingHandler {
  constructor(private readonly access: SpaceAccess) {
    super();
  }

  async execute({ collectionId, caller, ifMatch }: DeleteCollection): Promise<void> {
    const { role } = await this.access.collection(collectionId, caller);
    if (role !== 'admin') throw DomainError.forbidden(`only members with role admin on collection ${collectionId} may delete it`);
    await this.decide(
      collectionStream(collectionId),
      collectionDecider,
      { kind: 'DeleteCollection', collectionId, by: { userId: userOf(caller).userId, role }, now: this.now() },
      { caller, ifMatch },
    );
  }
}

/*
 * The collection cascades' steps (collection.reactors.ts), dispatched by the reaction: stamped with
 * the reactor's caller, decided without a permission check, each only if what it reacts to still
 * holds (the decider checks it), so a redelivered event appends nothing.
 */

/** Its parent collection was deleted: the collection moves to `parent` (at `position`) if it is still in `from`. */
export class ReparentCollection extends Command<void> {
  constructor(
    readonly collectionId: string,
    readonly from: string,
    readonly parent: string | null,
    readonly position: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(ReparentCollection)
export class ReparentCollectionHandler extends DecidingHandler {
  async execute({ collectionId, from, parent, position, caller }: ReparentCollection): Promise<void> {
    await this.decide(
      collectionStream(collectionId),
      collectionDecider,
      { kind: 'ReparentCollection', collectionId, from, parent, position, now: this.now() },
      { caller },
    );
  }
}

/** An ancestor was transferred to `organizationId`: the collection follows it, keeping its parent. */
export class TransferCollectionWithParent extends Command<void> {
  constructor(
    readonly collectionId: string,
    readonly organizationId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(TransferCollectionWithParent)
export class TransferCollectionWithParentHandler extends DecidingHandler {
  async execute({ collectionId, organizationId, caller }: TransferCollectionWithParent): Promise<void> {
    await this.decide(
      collectionStream(collectionId),
      collectionDecider,
      { kind: 'TransferCollectionWithParent', collectionId, organizationId, now: this.now() },
      { caller },
    );
  }
}

export const collectionCommandHandlers = [
  CreateCollectionHandler,
  UpdateCollectionHandler,
  MoveCollectionHandler,
  TransferCollectionHandler,
  DeleteCollectionHandler,
  ReparentCollectionHandler,
  TransferCollectionWithParentHandler,
];
