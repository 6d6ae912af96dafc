import type { AppConfig } from '../../platform/src/config';
import type { Caller } from '../../platform/src/http/auth';
import { MemoryReadStore } from '../../read-store/src/memory/memory-read-store';
import type { ChangeRequestContent } from './changerequests-content.port';
import type { ChangeRequestComments, ChangeRequestSpace, ChangeRequestSpaces, ChangeRequestUsers } from './changerequests-spaces.port';
import { CHANGE_REQUESTS, type ChangeRequestDoc } from './changerequest.projections';
import { ChangeRequestQueries } from './changerequest.queries';

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

/** The queries over a read store holding `requests`, the caller able to read `readable` spaces. */
async function queriesWith(readable: string[] | 'every space', requests: ChangeRequestDoc[]): Promise<ChangeRequestQueries> {
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
  return new ChangeRequestQueries(reads, spaces, users, content, comments, Buffer.alloc(32), config, { now: () => new Date('2026-02-01T00:00:00.000Z') });
}

describe('GET /orgs/{organizationId}/change-requests', () => {
  it('given more than a thousand readable spaces, then requests of every one of them are listed', async () => {
    const readable = Array.from({ length: 1_500 }, (_, i) => `space-${String(i).padStart(4, '0')}`);
    const queries = await queriesWith(readable, [request('first', readable[0], '2026-01-02T00:00:00.000Z'), request('last', readable[1_499], '2026-01-03T00:00:00.000Z')]);
    const list = await queries.listOrganization(organizationId, caller, {});
    expect(list.items.map((item) => item.id)).toEqual(['last', 'first']);
    expect(list.count).toBe(2);
  });

  it('given a caller who reads every space, then requests of deleted and purged spaces are neither listed nor counted', async () => {
    const queries = await queriesWith('every space', [
      request('live', 's1', '2026-01-02T00:00:00.000Z'),
      { ...request('in-deleted', 's2', '2026-01-03T00:00:00.000Z'), spaceDeleted: true },
      { ...request('in-purged', 's3', '2026-01-04T00:00:00.000Z'), purged: true },
    ]);
    const list = await queries.listOrganization(organizationId, caller, {});
    expect(list.items.map((item) => item.id)).toEqual(['live']);
    expect(list.count).toBe(1);
  });

  it('given a request in a space the caller may not read, then it is neither listed nor counted', async () => {
    const queries = await queriesWith(['readable'], [request('shown', 'readable', '2026-01-02T00:00:00.000Z'), request('hidden', 'unreadable', '2026-01-03T00:00:00.000Z')]);
    const list = await queries.listOrganization(organizationId, caller, {});
    expect(list.items.map((item) => item.id)).toEqual(['shown']);
    expect(list.count).toBe(1);
  });
});
