import { CqrsModule, QueryBus } from '@nestjs/cqrs';
import { Test } from '@nestjs/testing';
import { BLOB_STORE, type BlobStore } from '#blob-store/blob-store.port';
import { APP_CONFIG } from '#platform/config';
import type { Caller } from '#platform/http/auth';
import { MemoryReadStore } from '#read-store/memory/memory-read-store';
import { READ_STORE } from '#read-store/read-store.port';
import {
  COMMENT_CHANGE_REQUESTS,
  COMMENT_CONTENT,
  COMMENT_MEMBERS,
  COMMENT_SPACES,
  COMMENT_USERS,
  type CommentContent,
  type CommentPeople,
  type CommentSpaces,
} from './comments.needs';
import { CommentBodies, commentBodyBytes } from './comment.bodies';
import type { BodyRef, CommentBody } from './comment.events';
import { CommentPlaces } from './comment.places';
import { CommentPresenter } from './comment.presenter';
import { COMMENTS, type CommentDoc } from './comment.projections';
import { GetComment, GetCommentHandler } from './comment.queries';

const t0 = '2026-01-01T00:00:00.000Z';
const document: CommentBody = { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', data: {}, nodes: [] }] };
const HASH = 'c'.repeat(64);
const caller = { kind: 'user', userId: 'cleo' } as Caller;

/** The comment reads, on a query bus, over a read store holding `comments`, with a converter that renders every body as `rendered when read`. */
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
  const spaces: CommentSpaces = {
    spaceFor: (id) =>
      Promise.resolve({ id, organizationId: 'o1', deleted: false, permissions: { view: true, comment: true, admin: false } }),
  };
  const people: CommentPeople = { byIds: () => Promise.resolve(new Map()), present: (user) => ({ object: 'user', id: user._id }) };
  const blobsRead: string[] = [];
  const blobs = { read: (hash: string) => (blobsRead.push(hash), Promise.resolve(commentBodyBytes(document))) } as unknown as BlobStore;
  const module = await Test.createTestingModule({
    imports: [CqrsModule.forRoot()],
    providers: [
      { provide: READ_STORE, useValue: reads },
      { provide: COMMENT_SPACES, useValue: spaces },
      { provide: COMMENT_CHANGE_REQUESTS, useValue: {} },
      { provide: COMMENT_CONTENT, useValue: content },
      { provide: COMMENT_USERS, useValue: people },
      { provide: COMMENT_MEMBERS, useValue: {} },
      { provide: APP_CONFIG, useValue: { publicUrl: 'http://localhost' } },
      { provide: BLOB_STORE, useValue: blobs },
      CommentPlaces,
      CommentBodies,
      CommentPresenter,
      GetCommentHandler,
    ],
  }).compile();
  await module.init();
  const bus = module.get(QueryBus);
  const get = (commentId: string, format?: 'markdown' | 'document') =>
    bus.execute(new GetComment({ spaceId: 's1' }, commentId, caller, format));
  return { get, rendered, blobsRead };
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
    const { get, rendered, blobsRead } = await queriesOver([comment('c1', { blob: HASH, markdown: 'Stored\n' })]);
    expect((await get('c1')).object.body).toEqual({ markdown: 'Stored\n' });
    expect([rendered, blobsRead]).toEqual([[], []]);
  });

  it('given a comment stored with its blob, when read as a document, then the document from the blob store', async () => {
    const { get, blobsRead } = await queriesOver([comment('c1', { blob: HASH, markdown: 'Stored\n' })]);
    expect((await get('c1', 'document')).object.body).toEqual({ document });
    expect(blobsRead).toEqual([HASH]);
  });

  it('given a comment stored inline before markdown was kept, then reads render its document', async () => {
    const { get, rendered } = await queriesOver([comment('c1', { document })]);
    expect((await get('c1')).object.body).toEqual({ markdown: 'rendered when read\n' });
    expect(rendered).toHaveLength(1);
  });

  it('given a comment stored inline with its markdown, when read as a document, then the inline document', async () => {
    const { get, blobsRead } = await queriesOver([comment('c1', { document, markdown: 'Stored\n' })]);
    expect((await get('c1', 'document')).object.body).toEqual({ document });
    expect(blobsRead).toEqual([]);
  });
});
