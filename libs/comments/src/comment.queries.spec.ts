import type { AppConfig } from '../../platform/src/config';
import type { Caller } from '../../platform/src/http/auth';
import { MemoryReadStore } from '../../read-store/src/memory/memory-read-store';
import type { CommentContent } from './comments-content.port';
import type { CommentChangeRequests, CommentMembers, CommentPeople, CommentSpaces } from './comments-spaces.port';
import type { CommentBody } from './comment.events';
import { COMMENTS, type CommentDoc } from './comment.projections';
import { CommentQueries } from './comment.queries';

const t0 = '2026-01-01T00:00:00.000Z';
const body: CommentBody = { object: 'document', data: {}, nodes: [] };
const caller = { kind: 'user', userId: 'cleo' } as Caller;

/** The queries over a read store holding `comments`, with a converter that renders every body as `rendered when read`. */
async function queriesOver(comments: CommentDoc[]) {
  const reads = new MemoryReadStore();
  for (const comment of comments) await reads.collection<CommentDoc>(COMMENTS).put(comment);
  const rendered: CommentBody[] = [];
  const content: CommentContent = {
    document: () => Promise.reject(new Error('not written here')),
    markdown: (document) => (rendered.push(document), 'rendered when read\n'),
    target: () => Promise.resolve(null),
    current: (_space, _revision, targets) => Promise.resolve(targets.map(() => ({ page: null, fingerprint: null }))),
    head: () => Promise.resolve('r1'),
  };
  const spaces: CommentSpaces = { spaceFor: (id) => Promise.resolve({ id, organizationId: 'o1', deleted: false, permissions: { view: true, comment: true, admin: false } }) };
  const people: CommentPeople = { byIds: () => Promise.resolve(new Map()), present: (user) => ({ object: 'user', id: user._id }) };
  const queries = new CommentQueries(reads, spaces, {} as CommentChangeRequests, content, people, {} as CommentMembers, { publicUrl: 'http://localhost' } as AppConfig);
  return { queries, rendered };
}

const comment = (id: string, bodyMarkdown?: string): CommentDoc => ({
  _id: id,
  spaceId: 's1',
  organizationId: 'o1',
  changeRequestId: null,
  target: { pageId: 'p1', node: null, revision: 'r1' },
  body,
  ...(bodyMarkdown !== undefined ? { bodyMarkdown } : {}),
  postedBy: 'cleo',
  postedAt: t0,
  status: 'open',
  reactions: [],
  replies: 0,
});

describe('comment queries: bodies as markdown', () => {
  it('given a comment stored with its markdown, then reads answer that markdown without rendering', async () => {
    const { queries, rendered } = await queriesOver([comment('c1', 'Stored\n')]);
    expect((await queries.get({ spaceId: 's1' }, 'c1', caller)).body).toEqual({ markdown: 'Stored\n' });
    expect(rendered).toEqual([]);
  });

  it('given a comment stored before markdown was kept, then reads render its document', async () => {
    const { queries, rendered } = await queriesOver([comment('c1')]);
    expect((await queries.get({ spaceId: 's1' }, 'c1', caller)).body).toEqual({ markdown: 'rendered when read\n' });
    expect(rendered).toHaveLength(1);
  });

  it('given a comment stored with its markdown, when read as a document, then the document', async () => {
    const { queries } = await queriesOver([comment('c1', 'Stored\n')]);
    expect((await queries.get({ spaceId: 's1' }, 'c1', caller, 'document')).body).toEqual({ document: body });
  });
});
