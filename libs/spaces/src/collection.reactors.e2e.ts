import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandBus } from '@nestjs/cqrs';
import { createService, type Service } from '#composition/api/app';
import type { RecordedEvent } from '#event-store/event-store.port';
import { loadConfig } from '#platform/config';
import type { Caller } from '#platform/http/auth';
import { service as composedService } from '#composition/contexts';
import { spacesContext } from './spaces.context';
import type { ReactionContext, RecordedOf } from '#runtime/reactor';
import { runInReaction } from '#runtime/reaction-scope';
import { collectionDecider, collectionStream, type CollectionCommand } from './collection.decider';
import { collectionReactor } from './collection.reactors';
import { spaceDecider, spaceStream, type SpaceCommand } from './space.decider';
import type { CollectionEvent, SpaceEvent } from './space.events';

const admin: Caller = { kind: 'admin', requestId: 'test' } as Caller;
const by = { userId: 'ada', role: 'admin' as const };
const now = '2026-01-01T00:00:00.000Z';

/**
 * The collection reactor in the API process on the embedded stores (the embedded mode's wiring):
 * commands go straight to the deciders, and each write answers once its cascade shows in the read
 * models.
 */
describe('collection reactor (embedded: in the API process)', () => {
  let dataDir: string;
  let service: Service;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'collection-reactor-'));
    service = await createService({
      config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }),
      adminToken: 'admin-token-for-tests-0123456789',
    });
    await service.runtime.runner!.start();
    await service.runtime.runner!.whenCaughtUp();
    await Promise.all(service.runtime.reactors.map((reactor) => reactor.whenCaughtUp()));
  });
  afterAll(async () => {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const commands = () => service.runtime.commands;
  const reads = () => service.runtime.stores.reads;
  const collection = (command: CollectionCommand) =>
    commands().run(collectionStream(command.collectionId), collectionDecider, command, { caller: admin });
  const space = (command: SpaceCommand) => commands().run(spaceStream(command.spaceId), spaceDecider, command, { caller: admin });
  const createCollection = (collectionId: string, organizationId: string, parent: string | null, position = 'a0') =>
    collection({ kind: 'CreateCollection', collectionId, organizationId, title: collectionId, parent, position, by, now });
  const createSpace = (spaceId: string, organizationId: string, parent: string | null, position = 'a0') =>
    space({
      kind: 'CreateSpace',
      spaceId,
      organizationId,
      title: spaceId,
      emoji: null,
      visibility: 'in-collection',
      editMode: 'live',
      defaultLevel: null,
      parent,
      position,
      by,
      now,
    });
  const parentOf = async (kind: 'spaces' | 'collections', id: string) => (await reads().collection(kind).get(id))?.parent;
  const lastEvent = async (stream: string): Promise<RecordedEvent> => (await service.runtime.stores.events.readStream(stream)).at(-1)!;

  /** Runs the reactor's reaction to `event` again, as a redelivery after a crash would. */
  async function redeliver(event: RecordedEvent): Promise<number> {
    let appended = 0;
    const context: ReactionContext = {
      caller: { kind: 'system', id: 'reactor-collection-cascades', label: 'test' },
      correlationId: 'redelivery',
      causationId: event.id,
      commandBus: service.app.get(CommandBus),
      commands: commands(),
      reads: reads(),
      services: {
        get: () => {
          throw new Error('unused');
        },
      },
    };
    await runInReaction({ reactor: 'test', correlationId: 'redelivery', causationId: event.id, appended: () => appended++ }, () =>
      collectionReactor.react(event as RecordedOf<SpaceEvent | CollectionEvent>, context),
    );
    return appended;
  }

  it('is registered with the service: the API process runs every reactor', () => {
    expect(service.runtime.reactors.map((reactor) => reactor.name)).toEqual(composedService().reactors.map((reactor) => reactor.name));
    expect(spacesContext.reactors).toContain(collectionReactor);
  });

  it('moves a deleted collection’s spaces and sub-collections up to its parent; the delete answers once they show; redelivery appends nothing', async () => {
    await createCollection('outer', 'o1', null);
    await createCollection('doomed', 'o1', 'outer');
    await createSpace('keep', 'o1', 'outer');
    await createCollection('child', 'o1', 'doomed');
    await createSpace('s1', 'o1', 'doomed');
    await createSpace('s2', 'o1', 'doomed', 'a1');

    await collection({ kind: 'DeleteCollection', collectionId: 'doomed', by, now });
    // Read-your-writes covered the cascade: the read models show it as soon as the write answers.
    expect(await parentOf('spaces', 's1')).toBe('outer');
    expect(await parentOf('spaces', 's2')).toBe('outer');
    expect(await parentOf('collections', 'child')).toBe('outer');
    const moved = await lastEvent(spaceStream('s1'));
    expect(moved).toMatchObject({ type: 'SpaceMoved', data: { reason: 'collection-deleted' } });
    const deleted = await lastEvent(collectionStream('doomed'));
    expect(moved.metadata).toMatchObject({ causationId: deleted.id, correlationId: 'test', source: 'system' });
    // After its siblings, in their own order.
    const positions = await Promise.all(
      ['keep', 's1', 's2'].map(async (id) => (await reads().collection('spaces').get(id))!.position as string),
    );
    expect([...positions].sort()).toEqual(positions);

    const head = await service.runtime.stores.events.headPosition();
    expect(await redeliver(deleted)).toBe(0);
    expect(await service.runtime.stores.events.headPosition()).toBe(head);
  });

  it('moves up, to the nearest live ancestor, what lands in a collection deleted meanwhile', async () => {
    await createCollection('top', 'o2', null);
    await createCollection('gone', 'o2', 'top');
    await collection({ kind: 'DeleteCollection', collectionId: 'gone', by, now });
    // A request that checked the read models just before the deletion.
    await createSpace('late', 'o2', 'gone');
    expect(await parentOf('spaces', 'late')).toBe('top');
    await collection({ kind: 'DeleteCollection', collectionId: 'top', by, now });
    await createCollection('later', 'o2', 'gone');
    expect(await parentOf('collections', 'later')).toBeNull();
    expect(await parentOf('spaces', 'late')).toBeNull();
  });

  it('takes a transferred collection’s sub-collections and spaces along, hop by hop; redelivery appends nothing', async () => {
    await createCollection('root', 'o3', null);
    await createCollection('inner', 'o3', 'root');
    await createCollection('innermost', 'o3', 'inner');
    await createSpace('r1', 'o3', 'root');
    await createSpace('i1', 'o3', 'innermost');
    await collection({
      kind: 'TransferCollection',
      collectionId: 'root',
      organizationId: 'o4',
      position: 'a0',
      by,
      targetMember: true,
      targetOrganizationRole: 'admin',
      now,
    });
    for (const id of ['root', 'inner', 'innermost'])
      expect(await reads().collection('collections').get(id)).toMatchObject({ organizationId: 'o4' });
    expect(await reads().collection('spaces').get('i1')).toMatchObject({ organizationId: 'o4', parent: 'innermost' });
    expect(await reads().collection('spaces').get('r1')).toMatchObject({ organizationId: 'o4', parent: 'root' });

    const transferred = (await service.runtime.stores.events.readStream(collectionStream('root'))).find(
      (event) => event.type === 'CollectionTransferred',
    )!;
    expect(await redeliver(transferred)).toBe(0);
  });

  it('a replayed transfer does not undo a later one: children follow where the collection is now', async () => {
    await createCollection('p', 'o5', null);
    await createCollection('q', 'o5', 'p');
    await collection({
      kind: 'TransferCollection',
      collectionId: 'p',
      organizationId: 'o6',
      position: 'a0',
      by,
      targetMember: true,
      targetOrganizationRole: 'admin',
      now,
    });
    await collection({
      kind: 'TransferCollection',
      collectionId: 'p',
      organizationId: 'o5',
      position: 'a0',
      by,
      targetMember: true,
      targetOrganizationRole: 'admin',
      now,
    });
    expect(await reads().collection('collections').get('q')).toMatchObject({ organizationId: 'o5' });
    const first = (await service.runtime.stores.events.readStream(collectionStream('p'))).find(
      (event) => event.type === 'CollectionTransferred',
    )!;
    expect(await redeliver(first)).toBe(0);
    expect(await reads().collection('collections').get('q')).toMatchObject({ organizationId: 'o5' });
  });

  it('reports the reactors in /health', async () => {
    const health = (await service.app.inject({ method: 'GET', url: '/health' })).json();
    expect(health.reactors).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'collection-cascades', caughtUp: true, failing: null })]),
    );
  });
});
