import { inStream, projectionSpec } from '#testing';
import type { BodyRef, CommentBody, CommentEvent } from './comment.events';
import { COMMENT_COUNTS, COMMENT_REPLIES, COMMENTERS, COMMENTS, commentProjection } from './comment.projections';

const t0 = '2026-01-01T00:00:00.000Z';
const t1 = '2026-01-02T00:00:00.000Z';
const t2 = '2026-01-03T00:00:00.000Z';
const spec = projectionSpec(commentProjection);
const document: CommentBody = { object: 'document', data: {}, nodes: [] };
const body: BodyRef = { blob: 'b'.repeat(64), markdown: 'Body\n' };
const about = (commentId: string, changeRequestId: string | null = null) => ({
  commentId,
  spaceId: 's1',
  organizationId: 'o1',
  changeRequestId,
});
const posted = (commentId: string, changeRequestId: string | null = null, by = 'cleo'): CommentEvent => ({
  type: 'CommentPosted',
  data: { ...about(commentId, changeRequestId), target: { pageId: 'p1', node: null, revision: 'r1' }, body, postedBy: by, postedAt: t0 },
});
const thread = inStream('comment-c1', [
  posted('c1'),
  { type: 'CommentReplyPosted', data: { ...about('c1'), replyId: 'y1', body, postedBy: 'eve', postedAt: t0 } },
  { type: 'CommentReactionAdded', data: { ...about('c1'), replyId: null, emoji: '👍', user: 'rita', reactedAt: t0 } },
  { type: 'CommentReactionAdded', data: { ...about('c1'), replyId: null, emoji: '👍', user: 'eve', reactedAt: t0 } },
  { type: 'CommentResolved', data: { ...about('c1'), resolvedBy: 'eve', resolvedAt: t0 } },
]);
const other = inStream('comment-c2', [posted('c2')]);
const onRequest = inStream('comment-c3', [posted('c3', 'cr1')]);
const deleted = inStream('comment-c2', [{ type: 'CommentDeleted', data: { ...about('c2'), deletedBy: 'cleo', deletedAt: t0 } }]);

describe('comment projection', () => {
  it('given a thread replied to, reacted to and resolved, then its document', async () => {
    await spec.given(thread).then({
      [COMMENTS]: [
        expect.objectContaining({
          _id: 'c1',
          status: 'resolved',
          resolvedBy: 'eve',
          replies: 1,
          reactions: [
            {
              emoji: '👍',
              users: [
                { user: 'rita', reactedAt: t0 },
                { user: 'eve', reactedAt: t0 },
              ],
            },
          ],
        }),
      ],
    });
  });

  it('given a reply, then its document', async () => {
    await spec.given(thread).then({ [COMMENT_REPLIES]: [expect.objectContaining({ _id: 'y1', commentId: 'c1', postedBy: 'eve' })] });
  });

  it('given comments on the space and on a change request, then open counts for each', async () => {
    await spec
      .given([...thread, ...other, ...onRequest])
      .then({ [COMMENT_COUNTS]: [expect.objectContaining({ _id: 'cr:cr1', open: 1 }), expect.objectContaining({ _id: 's1', open: 1 })] });
  });

  it('given a deleted comment, then a tombstone and a lower count', async () => {
    await spec.given([...other, ...deleted]).then({
      [COMMENTS]: [expect.objectContaining({ _id: 'c2', status: 'deleted' })],
      [COMMENT_COUNTS]: [expect.objectContaining({ _id: 's1', open: 0 })],
    });
  });

  it('given a comment and a reply by two people, then both are commenters', async () => {
    await spec.given(thread).then({
      [COMMENTERS]: [
        expect.objectContaining({ _id: 's1:cleo', userId: 'cleo' }),
        expect.objectContaining({ _id: 's1:eve', userId: 'eve' }),
      ],
    });
  });

  describe('bodies', () => {
    const blobBody = (markdown: string): BodyRef => ({ blob: 'a'.repeat(64), markdown });
    const replyPosted = (replyId: string, by: string, at: string): CommentEvent => ({
      type: 'CommentReplyPosted',
      data: { ...about('c1'), replyId, body: blobBody('Reply\n'), postedBy: by, postedAt: at },
    });

    it('given a comment posted with its body in the blob store, then the comment keeps the hash and the markdown, no document', async () => {
      const event: CommentEvent = {
        type: 'CommentPosted',
        data: {
          ...about('c1'),
          target: { pageId: 'p1', node: null, revision: 'r1' },
          body: blobBody('Hello\n'),
          postedBy: 'cleo',
          postedAt: t0,
        },
      };
      await spec
        .given(inStream('comment-c1', [event]))
        .then({ [COMMENTS]: [expect.objectContaining({ _id: 'c1', body: { blob: 'a'.repeat(64), markdown: 'Hello\n' } })] });
    });

    it('given a comment stored with its document inline and its markdown beside it (before the blob store), then the upcast body', async () => {
      const legacy = {
        type: 'CommentPosted',
        data: {
          ...about('c1'),
          target: { pageId: 'p1', node: null, revision: 'r1' },
          body: document,
          bodyMarkdown: 'Before\n',
          postedBy: 'cleo',
          postedAt: t0,
        },
      } as unknown as CommentEvent;
      await spec
        .given(inStream('comment-c1', [legacy]))
        .then({ [COMMENTS]: [expect.objectContaining({ _id: 'c1', body: { document, markdown: 'Before\n' } })] });
    });

    it('given a comment stored before markdown was kept, then its body has the document only (reads render it)', async () => {
      const legacy = {
        type: 'CommentPosted',
        data: { ...about('c1'), target: { pageId: 'p1', node: null, revision: 'r1' }, body: document, postedBy: 'cleo', postedAt: t0 },
      } as unknown as CommentEvent;
      await spec.given(inStream('comment-c1', [legacy])).then({ [COMMENTS]: [expect.objectContaining({ _id: 'c1', body: { document } })] });
    });

    it('given a reply edited with a new body, then the reply keeps the new body only', async () => {
      await spec
        .given(
          inStream('comment-c1', [
            posted('c1'),
            replyPosted('y1', 'eve', t0),
            {
              type: 'CommentReplyEdited',
              data: { ...about('c1'), replyId: 'y1', body: blobBody('After\n'), editedBy: 'eve', editedAt: t1 },
            },
          ]),
        )
        .then({ [COMMENT_REPLIES]: [expect.objectContaining({ _id: 'y1', body: { blob: 'a'.repeat(64), markdown: 'After\n' } })] });
    });

    it('given replies by two people, one edited and one of them deleted, then the repliers with their counts and last contribution', async () => {
      await spec
        .given(
          inStream('comment-c1', [
            posted('c1'),
            replyPosted('y1', 'eve', t0),
            replyPosted('y2', 'ada', t1),
            replyPosted('y3', 'eve', t1),
            {
              type: 'CommentReplyEdited',
              data: { ...about('c1'), replyId: 'y1', body: blobBody('Edited\n'), editedBy: 'eve', editedAt: t2 },
            },
            { type: 'CommentReplyDeleted', data: { ...about('c1'), replyId: 'y2', deletedBy: 'ada', deletedAt: t2 } },
          ]),
        )
        .then({ [COMMENTS]: [expect.objectContaining({ _id: 'c1', replies: 2, repliers: [{ user: 'eve', count: 2, updatedAt: t2 }] })] });
    });
  });

  describe('the thread’s ETag', () => {
    const reply = (type: 'CommentReplyPosted' | 'CommentReplyEdited' | 'CommentReplyDeleted', at: string): CommentEvent =>
      type === 'CommentReplyPosted'
        ? { type, data: { ...about('c1'), replyId: 'y1', body, postedBy: 'eve', postedAt: at } }
        : type === 'CommentReplyEdited'
          ? { type, data: { ...about('c1'), replyId: 'y1', body, editedBy: 'eve', editedAt: at } }
          : { type, data: { ...about('c1'), replyId: 'y1', deletedBy: 'eve', deletedAt: at } };
    const lastEvents: Array<[string, CommentEvent[]]> = [
      ['posted', []],
      ['edited', [{ type: 'CommentEdited', data: { ...about('c1'), body, editedBy: 'cleo', editedAt: t1 } }]],
      [
        'resolved and reopened',
        [
          { type: 'CommentResolved', data: { ...about('c1'), resolvedBy: 'eve', resolvedAt: t1 } },
          { type: 'CommentReopened', data: { ...about('c1'), reopenedBy: 'eve', reopenedAt: t2 } },
        ],
      ],
      ['reacted to', [{ type: 'CommentReactionAdded', data: { ...about('c1'), replyId: null, emoji: '👍', user: 'rita', reactedAt: t1 } }]],
      ['replied to', [reply('CommentReplyPosted', t1)]],
      ['replied to, the reply edited', [reply('CommentReplyPosted', t1), reply('CommentReplyEdited', t2)]],
      [
        'replied to, the reply reacted to',
        [
          reply('CommentReplyPosted', t1),
          { type: 'CommentReactionAdded', data: { ...about('c1'), replyId: 'y1', emoji: '👀', user: 'rita', reactedAt: t2 } },
        ],
      ],
      ['replied to, the reply deleted', [reply('CommentReplyPosted', t1), reply('CommentReplyDeleted', t2)]],
    ];
    it.each(lastEvents)(
      'given a thread %s, then its document has the revision of the stream’s last event, which its replies answer too',
      async (_label, events) => {
        await spec
          .given(inStream('comment-c1', [posted('c1'), ...events]))
          .then({ [COMMENTS]: [expect.objectContaining({ _id: 'c1', streamRevision: events.length })] });
      },
    );
  });

  it('given the events applied twice, then the documents are unchanged', async () => {
    await spec.given([...thread, ...other, ...onRequest, ...deleted]).thenIdempotent();
  });
});
