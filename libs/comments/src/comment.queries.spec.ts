import type { AppConfig } from '../../platform/src/config';
import type { Caller } from '../../platform/src/http/auth';
import { MemoryReadStore } from '../../read-store/src/memory/memory-read-store';
import type { CommentContent } from './comments-content.port';
import type { CommentChangeRequests, CommentMembers, CommentPeople, CommentSpaces } from './comments-spaces.port';
import { CommentBodies, commentBodyBytes } from './comment.bodies';
import type { BlobStore } from '../../blob-store/src/blob-store.port';
import type { BodyRef, CommentBody } from './comment.events';
import { COMMENTS, type CommentDoc } from './comment.projections';
import { CommentQueries } from './comment.queries';

const t0 = '2026-01-01T00:00:00.000Z';
const document: CommentBody = { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', data: {}, nodes: [] }] };
const HASH = 'c'.repeat(64);
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
  const blobsRead: string[] = [];
  const blobs = { read: (hash: string) => (blobsRead.push(hash), Promise.resolve(commentBodyBytes(document))) } as unknown as BlobStore;
  const queries = new CommentQueries(reads, spaces, {} as CommentChangeRequests, content, people, {} as CommentMembers, { publicUrl: 'http://localhost' } as AppConfig, new CommentBodies(blobs));
  return { queries, rendered, blobsRead };
}

const comment = (id: string, body: BodyRef): CommentDoc => ({
  _id: id,
  spaceId: 's1',
  organizationId: 'o1',
  changeRequestId: null,
  target: { pageId: 'p1', node: null, revision: 'r1' },
  body,
  postedBy: 'cleo',
  postedAt: t0,
  status: 'open',
  reactions: [],
  replies: 0,
  repliers: [],
  streamRevision: 0,
});

describe('comment queries: bodies', () => {
  it('given a comment stored with its blob and markdown, then reads answer that markdown without rendering or reading the blob', async () => {
    const { queries, rendered, blobsRead } = await queriesOver([comment('c1', { blob: HASH, markdown: 'Stored\n' })]);
    expect((await queries.get({ spaceId: 's1' }, 'c1', caller)).object.body).toEqual({ markdown: 'Stored\n' });
    expect([rendered, blobsRead]).toEqual([[], []]);
  });

  it('given a comment stored with its blob, when read as a document, then the document from the blob store', async () => {
    const { queries, blobsRead } = await queriesOver([comment('c1', { blob: HASH, markdown: 'Stored\n' })]);
    expect((await queries.get({ spaceId: 's1' }, 'c1', caller, 'document')).object.body).toEqual({ document });
    expect(blobsRead).toEqual([HASH]);
  });

  it('given a comment stored inline before markdown was kept, then reads render its document', async () => {
    const { queries, rendered } = await queriesOver([comment('c1', { document })]);
    expect((await queries.get({ spaceId: 's1' }, 'c1', caller)).object.body).toEqual({ markdown: 'rendered when read\n' });
    expect(rendered).toHaveLength(1);
  });

  it('given a comment stored inline with its markdown, when read as a document, then the inline document', async () => {
    const { queries, blobsRead } = await queriesOver([comment('c1', { document, markdown: 'Stored\n' })]);
    expect((await queries.get({ spaceId: 's1' }, 'c1', caller, 'document')).object.body).toEqual({ document });
    expect(blobsRead).toEqual([]);
  });
});
