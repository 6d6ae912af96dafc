import { CommandBus, CqrsModule } from '@nestjs/cqrs';
import { Test, type TestingModule } from '@nestjs/testing';
import type { SpaceEvent } from '#spaces';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { MemoryReadStore } from '#read-store/memory/memory-read-store';
import { COMMAND_RUNNER, type CommandRunner } from '#runtime/command-runner';
import type { ReactionContext, RecordedOf, ServiceToken } from '#runtime/reactor';
import { RemoveSpaceFromSiteHandler } from './site-spaces.commands';
import type { SiteCommand } from './site.decider';
import { SITES, type SiteDoc } from './site.projections';
import { sitesToLeave, transferredSpacesReactor } from './site.reactors';
import { SITE_SPACES, type SiteSpaces } from './sites.needs';

const system: Caller = { kind: 'system', id: 'reactor-site-transferred-spaces', label: 'test' } as Caller;

const siteDoc = (id: string, organizationId: string, spaceIds: string[], deleted = false): SiteDoc =>
  ({
    _id: id,
    organizationId,
    spaceIds,
    siteSpaces: [],
    sections: [],
    streamRevision: 0,
    ...(deleted ? { deleted: true } : {}),
  }) as unknown as SiteDoc;

const transferred = (spaceId: string, from: string, to: string) =>
  ({
    id: `e-${spaceId}`,
    streamId: `space-${spaceId}`,
    revision: 3,
    type: 'SpaceTransferred',
    data: {
      spaceId,
      fromOrganizationId: from,
      organizationId: to,
      parent: null,
      position: 'a0',
      visibility: 'private',
      transferredAt: '2026-01-01T00:00:00.000Z',
    },
  }) as unknown as RecordedOf<SpaceEvent>;

describe('sitesToLeave (a site shows only spaces of its own organization)', () => {
  const sites = [siteDoc('a1', 'A', ['s']), siteDoc('a2', 'A', ['s']), siteDoc('b1', 'B', ['s'])];

  it('given a space now in B, then the sites of every other organization', () => {
    expect(sitesToLeave({ organizationId: 'B' }, sites).map((site) => site._id)).toEqual(['a1', 'a2']);
  });

  it('given a space transferred back to A before the reaction, then only the sites outside A', () => {
    expect(sitesToLeave({ organizationId: 'A' }, sites).map((site) => site._id)).toEqual(['b1']);
  });

  it('given a space that no longer exists, then none (the site-spaces reactor removes purged spaces)', () => {
    expect(sitesToLeave(null, sites)).toEqual([]);
  });
});

describe('site-transferred-spaces reactor', () => {
  let reads: MemoryReadStore;
  let spaceOrganization: string | null;
  let removed: Array<[string, string, string]>;
  let goneMeanwhile: Set<string>;
  let module: TestingModule;

  /** The command runner the system command's handler decides through: it records what the site decider is asked to remove. */
  const runner: Pick<CommandRunner, 'now' | 'run'> = {
    now: () => new Date('2026-01-02T00:00:00.000Z'),
    run: (async (_stream: string, _decider: unknown, command: SiteCommand) => {
      if (command.kind !== 'RemoveSpaceFromSite') throw new Error(`unexpected ${command.kind}`);
      if (goneMeanwhile.has(command.siteId)) throw DomainError.notFound(`no site ${command.siteId}`);
      removed.push([command.organizationId, command.siteId, command.spaceId]);
      return { events: [], revision: 1, position: undefined };
    }) as unknown as CommandRunner['run'],
  };

  const context = (): ReactionContext => {
    const spaces: Pick<SiteSpaces, 'spaceById'> = {
      spaceById: async (id) => (spaceOrganization === null ? null : { id, organizationId: spaceOrganization, title: id, deleted: false }),
    };
    const services = new Map<ServiceToken<unknown>, unknown>([[SITE_SPACES, spaces]]);
    return {
      caller: system,
      correlationId: 'c',
      causationId: 'e',
      commandBus: module.get(CommandBus),
      commands: undefined as never,
      reads,
      services: { get: <T>(token: ServiceToken<T>) => services.get(token) as T },
    };
  };

  beforeAll(async () => {
    module = await Test.createTestingModule({
      imports: [CqrsModule.forRoot()],
      providers: [RemoveSpaceFromSiteHandler, { provide: COMMAND_RUNNER, useValue: runner }],
    }).compile();
    await module.init();
  });
  afterAll(() => module.close());

  beforeEach(async () => {
    reads = new MemoryReadStore();
    removed = [];
    goneMeanwhile = new Set();
    for (const site of [
      siteDoc('a1', 'A', ['s', 'other']),
      siteDoc('a2', 'A', ['s']),
      siteDoc('a3', 'A', ['other']),
      siteDoc('old', 'A', ['s'], true),
    ])
      await reads.collection<SiteDoc>(SITES).put(site);
  });
  afterEach(() => reads.close());

  it('handles SpaceTransferred, under its own checkpoint', () => {
    expect(transferredSpacesReactor.handles).toEqual(['SpaceTransferred']);
    expect(transferredSpacesReactor.name).toBe('site-transferred-spaces');
  });

  it("given a space of A shown on two live sites of A, when it is transferred to B, then it is removed from both, as A's sites", async () => {
    spaceOrganization = 'B';
    await transferredSpacesReactor.react(transferred('s', 'A', 'B'), context());
    expect(removed.sort()).toEqual([
      ['A', 'a1', 's'],
      ['A', 'a2', 's'],
    ]);
  });

  it('given the space transferred back to A before the reaction runs, then it stays on the sites of A', async () => {
    spaceOrganization = 'A';
    await transferredSpacesReactor.react(transferred('s', 'A', 'B'), context());
    expect(removed).toEqual([]);
  });

  it('given a site deleted meanwhile (404), then the others are still cleaned and the reaction succeeds', async () => {
    spaceOrganization = 'B';
    goneMeanwhile.add('a1');
    await transferredSpacesReactor.react(transferred('s', 'A', 'B'), context());
    expect(removed).toEqual([['A', 'a2', 's']]);
  });
});
