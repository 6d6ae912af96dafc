import { CqrsModule, QueryBus } from '@nestjs/cqrs';
import { Test } from '@nestjs/testing';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { CLOCK } from '#platform/clock';
import type { Caller } from '#platform/http/auth';
import { MemoryReadStore } from '#read-store/memory/memory-read-store';
import { READ_STORE } from '#read-store/read-store.port';
import {
  CHANGE_REQUEST_COMMENTS,
  CHANGE_REQUEST_CONTENT,
  CHANGE_REQUEST_SPACES,
  CHANGE_REQUEST_URL_KEY,
  CHANGE_REQUEST_USERS,
  type ChangeRequestComments,
  type ChangeRequestContent,
  type ChangeRequestSpace,
  type ChangeRequestSpaces,
  type ChangeRequestUsers,
} from './changerequests.needs';
import { CHANGE_REQUESTS, type ChangeRequestDoc } from './changerequest.projections';
import { ChangeRequestDescriptions } from './changerequest.descriptions';
import { ChangeRequestPresenter } from './changerequest.presenter';
import { changeRequestQueryHandlers, ListChangeRequests, ListOrganizationChangeRequests } from './changerequest.queries';

const organizationId = 'org-1';
const caller = { kind: 'user', userId: 'reader' } as unknown as Caller;

function space(id: string): ChangeRequestSpace {
  return {
    id,
    organizationId,
    title: id,
    editMode: 'live',
    visibility: 'private',
    deleted: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    permissions: { view: true, edit: true, comment: true, admin: false, review: true, merge: true },
  };
}

function request(id: string, spaceId: string, createdAt: string): ChangeRequestDoc {
  return {
    _id: id,
    _position: '1',
    spaceId,
    organizationId,
    number: 1,
    status: 'open',
    subject: id,
    createdBy: null,
    createdAt,
    updatedAt: createdAt,
    revision: 'r2',
    revisionInitial: 'r1',
    baseRevision: 'r1',
    contributors: [],
    reviewers: [],
    streamRevision: 0,
  };
}

/** The query bus over a read store holding `requests`, the caller able to read `readable` spaces. */
async function queriesWith(readable: string[] | 'every space', requests: ChangeRequestDoc[]): Promise<QueryBus> {
  const reads = new MemoryReadStore();
  for (const doc of requests) await reads.collection<ChangeRequestDoc>(CHANGE_REQUESTS).insert(doc);
  const spaces: ChangeRequestSpaces = {
    spaceFor: async (spaceId) => space(spaceId),
    readableSpaces: async () => (readable === 'every space' ? [] : readable.map((id) => ({ id, title: id }))),
    readsEverySpace: async () => readable === 'every space',
  };
  const users: ChangeRequestUsers = { byIds: async () => new Map(), present: (user) => ({ object: 'user', id: user._id }) };
  const content = { heads: async () => new Map() } as unknown as ChangeRequestContent;
  const comments: ChangeRequestComments = { openComments: async () => new Map() };
  const config = { publicUrl: 'http://localhost:3000' } as AppConfig;
  const descriptions = { read: async () => new Map() } as unknown as ChangeRequestDescriptions;
  const module = await Test.createTestingModule({
    imports: [CqrsModule.forRoot()],
    providers: [
      ...changeRequestQueryHandlers,
      ChangeRequestPresenter,
      { provide: READ_STORE, useValue: reads },
      { provide: CHANGE_REQUEST_SPACES, useValue: spaces },
      { provide: CHANGE_REQUEST_USERS, useValue: users },
      { provide: CHANGE_REQUEST_CONTENT, useValue: content },
      { provide: CHANGE_REQUEST_COMMENTS, useValue: comments },
      { provide: CHANGE_REQUEST_URL_KEY, useValue: Buffer.alloc(32) },
      { provide: APP_CONFIG, useValue: config },
      { provide: CLOCK, useValue: { now: () => new Date('2026-02-01T00:00:00.000Z') } },
      { provide: ChangeRequestDescriptions, useValue: descriptions },
    ],
  }).compile();
  await module.init();
  return module.get(QueryBus);
}

describe('GET /orgs/{organizationId}/change-requests', () => {
  it('given more than a thousand readable spaces, then requests of every one of them are listed', async () => {
    const readable = Array.from({ length: 1_500 }, (_, i) => `space-${String(i).padStart(4, '0')}`);
    const queries = await queriesWith(readable, [
      request('first', readable[0], '2026-01-02T00:00:00.000Z'),
      request('last', readable[1_499], '2026-01-03T00:00:00.000Z'),
    ]);
    const list = await queries.execute(new ListOrganizationChangeRequests(organizationId, caller, {}));
    expect(list.items.map((item) => item.id)).toEqual(['last', 'first']);
    expect(list.count).toBe(2);
  });

  it('given a caller who reads every space, then requests of deleted and purged spaces are neither listed nor counted', async () => {
    const queries = await queriesWith('every space', [
      request('live', 's1', '2026-01-02T00:00:00.000Z'),
      { ...request('in-deleted', 's2', '2026-01-03T00:00:00.000Z'), spaceDeleted: true },
      { ...request('in-purged', 's3', '2026-01-04T00:00:00.000Z'), purged: true },
    ]);
    const list = await queries.execute(new ListOrganizationChangeRequests(organizationId, caller, {}));
    expect(list.items.map((item) => item.id)).toEqual(['live']);
    expect(list.count).toBe(1);
  });

  it('given a request in a space the caller may not read, then it is neither listed nor counted', async () => {
    const queries = await queriesWith(
      ['readable'],
      [request('shown', 'readable', '2026-01-02T00:00:00.000Z'), request('hidden', 'unreadable', '2026-01-03T00:00:00.000Z')],
    );
    const list = await queries.execute(new ListOrganizationChangeRequests(organizationId, caller, {}));
    expect(list.items.map((item) => item.id)).toEqual(['shown']);
    expect(list.count).toBe(1);
  });
});

describe('GET /spaces/{spaceId}/change-requests: filters and order', () => {
  const at = (day: number) => `2026-01-${String(day).padStart(2, '0')}T00:00:00.000Z`;
  /** Three requests of s1: #1 created first and updated last, #3 created last. */
  const requests = () => [
    { ...request('one', 's1', at(1)), number: 1, createdBy: 'ada', updatedAt: at(9), reviewers: ['eve'] },
    { ...request('two', 's1', at(2)), number: 2, createdBy: 'eve', updatedAt: at(5), contributors: ['eve', 'ada'] },
    { ...request('three', 's1', at(3)), number: 3, createdBy: 'ada', updatedAt: at(3) },
  ];
  const ids = async (query: ListChangeRequests['query']) =>
    (await (await queriesWith('every space', requests())).execute(new ListChangeRequests('s1', caller, query))).items.map(
      (item) => item.id,
    );

  it('given no order, then the most recently updated first (the platform’s default, updatedAt)', async () => {
    expect(await ids({})).toEqual(['one', 'two', 'three']);
  });

  it('given orderBy=createdAt, then the most recently created first', async () => {
    expect(await ids({ orderBy: 'createdAt' })).toEqual(['three', 'two', 'one']);
  });

  it('given creator, then only the requests that user created', async () => {
    expect(await ids({ creator: 'ada' })).toEqual(['one', 'three']);
  });

  it('given requestedReviewer, then only the requests that user is asked to review', async () => {
    expect(await ids({ requestedReviewer: 'eve' })).toEqual(['one']);
  });

  it('given a topic, then none: no request comes from a site topic here', async () => {
    expect(await ids({ topic: 'topic1' })).toEqual([]);
  });
});
