import { inStream, projectionSpec } from '../../testing/src';
import type { CommentBody, CommentEvent } from './comment.events';
import { COMMENT_COUNTS, COMMENT_REPLIES, COMMENTERS, COMMENTS, commentProjection } from './comment.projections';

const t0 = '2026-01-01T00:00:00.000Z';
const spec = projectionSpec(commentProjection);
const body: CommentBody = { object: 'document', data: {}, nodes: [] };
const about = (commentId: string, changeRequestId: string | null = null) => ({ commentId, spaceId: 's1', organizationId: 'o1', changeRequestId });
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
      [COMMENTS]: [expect.objectContaining({ _id: 'c1', status: 'resolved', resolvedBy: 'eve', replies: 1, reactions: [{ emoji: '👍', users: [{ user: 'rita', reactedAt: t0 }, { user: 'eve', reactedAt: t0 }] }] })],
    });
  });

  it('given a reply, then its document', async () => {
    await spec.given(thread).then({ [COMMENT_REPLIES]: [expect.objectContaining({ _id: 'y1', commentId: 'c1', postedBy: 'eve' })] });
  });

  it('given comments on the space and on a change request, then open counts for each', async () => {
    await spec.given([...thread, ...other, ...onRequest]).then({ [COMMENT_COUNTS]: [expect.objectContaining({ _id: 'cr:cr1', open: 1 }), expect.objectContaining({ _id: 's1', open: 1 })] });
  });

  it('given a deleted comment, then a tombstone and a lower count', async () => {
    await spec.given([...other, ...deleted]).then({ [COMMENTS]: [expect.objectContaining({ _id: 'c2', status: 'deleted' })], [COMMENT_COUNTS]: [expect.objectContaining({ _id: 's1', open: 0 })] });
  });

  it('given a comment and a reply by two people, then both are commenters', async () => {
    await spec.given(thread).then({ [COMMENTERS]: [expect.objectContaining({ _id: 's1:cleo', userId: 'cleo' }), expect.objectContaining({ _id: 's1:eve', userId: 'eve' })] });
  });

  describe('bodies’ markdown', () => {
    const edited = (commentId: string, bodyMarkdown?: string): CommentEvent => ({ type: 'CommentEdited', data: { ...about(commentId), body, ...(bodyMarkdown !== undefined ? { bodyMarkdown } : {}), editedBy: 'cleo', editedAt: t0 } });
    const withMarkdown = (commentId: string, bodyMarkdown: string): CommentEvent => {
      const event = posted(commentId);
      return { ...event, data: { ...event.data, bodyMarkdown } } as CommentEvent;
    };

    it('given a comment edited with new markdown, then the comment keeps the new markdown only', async () => {
      await spec.given(inStream('comment-c1', [withMarkdown('c1', 'Before\n'), edited('c1', 'After\n')])).then({ [COMMENTS]: [expect.objectContaining({ _id: 'c1', bodyMarkdown: 'After\n' })] });
    });

    it('given a reply edited with new markdown, then the reply keeps the new markdown only', async () => {
      await spec
        .given(
          inStream('comment-c1', [
            posted('c1'),
            { type: 'CommentReplyPosted', data: { ...about('c1'), replyId: 'y1', body, bodyMarkdown: 'Before\n', postedBy: 'eve', postedAt: t0 } },
            { type: 'CommentReplyEdited', data: { ...about('c1'), replyId: 'y1', body, bodyMarkdown: 'After\n', editedBy: 'eve', editedAt: t0 } },
          ]),
        )
        .then({ [COMMENT_REPLIES]: [expect.objectContaining({ _id: 'y1', bodyMarkdown: 'After\n' })] });
    });

    it('given a comment stored before markdown was kept, then its document has none (reads render the body)', async () => {
      await spec.given(inStream('comment-c1', [posted('c1')])).then({ [COMMENTS]: [expect.not.objectContaining({ bodyMarkdown: expect.anything() })] });
    });

    it('given a comment with markdown edited by an event without it, then the old markdown is dropped', async () => {
      await spec.given(inStream('comment-c1', [withMarkdown('c1', 'Before\n'), edited('c1')])).then({ [COMMENTS]: [expect.not.objectContaining({ bodyMarkdown: expect.anything() })] });
    });
  });

  it('given the events applied twice, then the documents are unchanged', async () => {
    await spec.given([...thread, ...other, ...onRequest, ...deleted]).thenIdempotent();
  });
});
