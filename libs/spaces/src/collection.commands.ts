import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../../platform/src/errors';
import { newId } from '../../platform/src/ids';
import { userOf, type Caller } from '../../platform/src/http/auth';
import { READ_STORE, type ReadStore } from '../../read-store/src/read-store.port';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { SPACE_ORGANIZATIONS, type SpaceOrganizations } from './space-organizations.port';
import { placeAmong, positionAtEnd, type PositionRequest } from './ordering';
import { renumberSiblings, siblingsUnder } from './siblings';
import { SpaceAccess } from './space.access';
import { collectionDecider, collectionStream, type CollectionCommand } from './collection.decider';
import type { CollectionChanges } from './space.events';
import { collectionRole, contentRole } from './space.permissions';

/** Follow-up commands of one request run by the service itself: stamped with the caller, decided without a permission check. */
@Injectable()
export class CollectionCommands {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: SpaceAccess,
    @Inject(SPACE_ORGANIZATIONS) private readonly membership: SpaceOrganizations,
  ) {}

  private now(): string {
    return this.commands.now().toISOString();
  }

  private run(collectionId: string, command: CollectionCommand, caller: Caller, ifMatch?: number) {
    return this.commands.run(collectionStream(collectionId), collectionDecider, command, { caller }, { ifMatch });
  }

  /** `POST /orgs/{organizationId}/collections`: at the end of its parent, after its spaces and collections (role create there, or in the organization). */
  async create(organizationId: string, body: { title?: string; parent?: string | null }, caller: Caller): Promise<string> {
    const userId = userOf(caller).userId;
    // Without teams: a collection role takes no team grants.
    const standing = await this.access.requireMember(organizationId, caller, []);
    const parent = body.parent ?? null;
    const chain = parent === null ? [] : await this.access.destination(organizationId, parent);
    const position = positionAtEnd(await siblingsUnder(this.reads, organizationId, parent));
    const collectionId = newId();
    await this.run(
      collectionId,
      { kind: 'CreateCollection', collectionId, organizationId, title: body.title ?? 'Untitled', parent, position, by: { userId, role: collectionRole(standing, chain) }, now: this.now() },
      caller,
    );
    return collectionId;
  }

  async update(collectionId: string, changes: CollectionChanges, caller: Caller, ifMatch?: number): Promise<void> {
    const { role } = await this.access.collection(collectionId, caller);
    await this.run(collectionId, { kind: 'UpdateCollection', collectionId, changes, by: { userId: userOf(caller).userId, role }, now: this.now() }, caller, ifMatch);
  }

  /**
   * `POST /collections/{collectionId}/move`: into another collection of the organization (not into
   * itself or a descendant: 400), null for the top level, absent to stay; `position` before and/or
   * after a sibling there, a collection or a space (they share one order).
   */
  async move(collectionId: string, body: { parent?: string | null; position?: PositionRequest }, caller: Caller, ifMatch?: number): Promise<void> {
    const { collection, standing, role } = await this.access.collection(collectionId, caller);
    const parent = body.parent === undefined ? collection.parent : body.parent;
    const chain = parent === null ? [] : await this.access.destination(collection.organizationId, parent);
    const placement = placeAmong(await siblingsUnder(this.reads, collection.organizationId, parent, { kind: 'collection', id: collectionId }), body.position);
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
      const { state, revision } = await this.commands.load(collectionStream(collectionId), collectionDecider);
      if (ifMatch !== undefined && ifMatch !== revision) throw DomainError.preconditionFailed(`the resource has changed: If-Match names revision ${ifMatch} but it is at ${revision ?? 'none'}`);
      const decided = collectionDecider.decide(command, state);
      if (decided instanceof DomainError) throw decided;
      await renumberSiblings(this.commands, placement, parent, caller);
    }
    await this.run(collectionId, command, caller, ifMatch);
  }

  /**
   * `POST /collections/{collectionId}/transfer`: the collection goes to the top level of the target
   * organization (where the caller must be an admin) with everything inside it: its descendant
   * collections keep their parents, its spaces (deleted ones too) stay in their collections; the
   * collection reactor (collection.reactors.ts) moves them, and the answer waits for it. A target the
   * caller does not belong to is 404 whether or not it exists.
   */
  async transfer(collectionId: string, organizationId: string, caller: Caller, ifMatch?: number): Promise<void> {
    const userId = userOf(caller).userId;
    const { role } = await this.access.collection(collectionId, caller);
    const target = await this.membership.roleOf(organizationId, userId);
    const targetMember = target?.member === true;
    const position = targetMember ? positionAtEnd(await siblingsUnder(this.reads, organizationId, null, { kind: 'collection', id: collectionId })) : '';
    await this.run(collectionId, { kind: 'TransferCollection', collectionId, organizationId, position, by: { userId, role }, targetMember, targetOrganizationRole: targetMember ? contentRole(target.role) : null, now: this.now() }, caller, ifMatch);
  }

  /**
   * `DELETE /collections/{collectionId}`: what was inside moves up one level. Its spaces (deleted
   * ones too, so that a restore finds a live parent) and collections go to the deleted collection's
   * parent (the top level when it had none), after that parent's existing children and in their
   * own order: the collection reactor does it in reaction to `CollectionDeleted` (and moves up
   * whatever arrives in a deleted collection later), and the answer waits for it.
   */
  async delete(collectionId: string, caller: Caller, ifMatch?: number): Promise<void> {
    const { role } = await this.access.collection(collectionId, caller);
    if (role !== 'admin') throw DomainError.forbidden(`only members with role admin on collection ${collectionId} may delete it`);
    await this.run(collectionId, { kind: 'DeleteCollection', collectionId, by: { userId: userOf(caller).userId, role }, now: this.now() }, caller, ifMatch);
  }
}
