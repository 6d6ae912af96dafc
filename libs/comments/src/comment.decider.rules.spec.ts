import { deciderSpec } from '#testing';
import { commentDecider, commentStream, type CommentAccess, type CommentCommand } from './comment.decider';
import type { BodyRef, CommentEvent } from './comment.events';

/**
 * The comment rules one at a time, each as its own given/when/then (the rules mutation testing
 * showed no spec held): what each event does to the state, replies' lifecycle, reactions of several
 * people, and the errors' wording where a client shows it.
 */
const t0 = '2026-01-01T00:00:00.000Z';
const spec = deciderSpec(commentDecider);
const body = (text: string): BodyRef => ({ blob: Buffer.from(text).toString('hex').padEnd(64, '0').slice(0, 64), markdown: `${text}\n` });
const commenter: CommentAccess = { read: true, comment: true, admin: false, spaceDeleted: false };
const reader: CommentAccess = { ...commenter, comment: false };
const admin: CommentAccess = { ...commenter, admin: true };
const about = { commentId: 'c1', spaceId: 's1', organizationId: 'o1', changeRequestId: null };
const act = (by: string, access: CommentAccess = commenter) => ({ commentId: 'c1', by, access, now: t0 });

const posted: CommentEvent = {
  type: 'CommentPosted',
  data: { ...about, target: { pageId: 'p1', node: null, revision: 'r1' }, body: body('Typo?'), postedBy: 'cleo', postedAt: t0 },
};
const resolved: CommentEvent = { type: 'CommentResolved', data: { ...about, resolvedBy: 'eve', resolvedAt: t0 } };
const reopened: CommentEvent = { type: 'CommentReopened', data: { ...about, reopenedBy: 'eve', reopenedAt: t0 } };
const deleted: CommentEvent = { type: 'CommentDeleted', data: { ...about, deletedBy: 'cleo', deletedAt: t0 } };
const replied: CommentEvent = {
  type: 'CommentReplyPosted',
  data: { ...about, replyId: 'r1', body: body('Fixed'), postedBy: 'eve', postedAt: t0 },
};
const replyDeleted: CommentEvent = { type: 'CommentReplyDeleted', data: { ...about, replyId: 'r1', deletedBy: 'eve', deletedAt: t0 } };
const reacted = (user: string, emoji = '👍', replyId: string | null = null): CommentEvent => ({
  type: 'CommentReactionAdded',
  data: { ...about, replyId, emoji, user, reactedAt: t0 },
});
const unreacted = (user: string, emoji = '👍', replyId: string | null = null): CommentEvent => ({
  type: 'CommentReactionRemoved',
  data: { ...about, replyId, emoji, user, removedAt: t0 },
});
const update = (
  by: string,
  changes: Extract<CommentCommand, { kind: 'UpdateComment' }>['changes'],
  access = commenter,
): CommentCommand => ({ kind: 'UpdateComment', changes, ...act(by, access) });
const updateReply = (by: string, changes: Extract<CommentCommand, { kind: 'UpdateReply' }>['changes'], replyId = 'r1'): CommentCommand => ({
  kind: 'UpdateReply',
  replyId,
  changes,
  mayResolve: false,
  ...act(by),
});

describe('comment decider: rules one by one', () => {
  it('a comment’s stream is comment-<id>', () => {
    expect(commentStream('c1')).toBe('comment-c1');
  });

  describe('the state each event leaves', () => {
    it('given a reopened comment, when resolved, then CommentResolved (reopening made it open)', () => {
      spec
        .given([posted, resolved, reopened])
        .when(update('eve', { resolved: true }))
        .then([resolved]);
    });

    it('given an edited comment, when its author edits it again, then CommentEdited (an edit keeps the author)', () => {
      const edited: CommentEvent = { type: 'CommentEdited', data: { ...about, body: body('Typo!'), editedBy: 'cleo', editedAt: t0 } };
      spec
        .given([posted, edited])
        .when(update('cleo', { body: body('Typo!!') }))
        .then([{ ...edited, data: { ...edited.data, body: body('Typo!!') } }]);
    });

    it('given a deleted comment, when updated, then 404', () => {
      spec
        .given([posted, deleted])
        .when(update('cleo', { resolved: true }))
        .thenFails(404, 'no comment c1');
    });

    it('given a deleted comment, when its posting is retried, then nothing (a deleted comment still holds its id)', () => {
      const post: CommentCommand = {
        kind: 'PostComment',
        scope: { spaceId: 's1', organizationId: 'o1', changeRequestId: null },
        target: { pageId: 'p1', node: null, revision: 'r1' },
        body: body('Typo?'),
        ...act('cleo'),
      };
      spec.given([posted, deleted]).when(post).thenNothing();
    });

    it('given a reaction removed, when its user adds it again, then CommentReactionAdded', () => {
      spec
        .given([posted, reacted('rita'), unreacted('rita')])
        .when(update('rita', { addedReactions: ['👍'] }, reader))
        .then([reacted('rita')]);
    });

    it('given an edited reply, when its author edits it again, then CommentReplyEdited', () => {
      const edited: CommentEvent = {
        type: 'CommentReplyEdited',
        data: { ...about, replyId: 'r1', body: body('Fixed!'), editedBy: 'eve', editedAt: t0 },
      };
      spec
        .given([posted, replied, edited])
        .when(updateReply('eve', { body: body('Fixed!!') }))
        .then([{ ...edited, data: { ...edited.data, body: body('Fixed!!') } }]);
    });
  });

  describe('replies', () => {
    it('given a reply, when posted again (a retry), then nothing', () => {
      spec
        .given([posted, replied])
        .when({ kind: 'PostReply', replyId: 'r1', body: body('Fixed'), ...act('eve') })
        .thenNothing();
    });

    it('given an open comment, when someone replies, then the reply only (no reopening)', () => {
      spec
        .given([posted])
        .when({ kind: 'PostReply', replyId: 'r1', body: body('Fixed'), ...act('eve') })
        .then([replied]);
    });

    it('given a reader, when they reply, then 403 saying it needs the comment role', () => {
      spec
        .given([posted])
        .when({ kind: 'PostReply', replyId: 'r2', body: body('?'), ...act('rita', reader) })
        .thenFails(403, 'you may not reply to comment c1: it needs the comment role');
    });

    it('given a reply, when its author edits its body, then CommentReplyEdited', () => {
      spec
        .given([posted, replied])
        .when(updateReply('eve', { body: body('Fixed!') }))
        .then([{ type: 'CommentReplyEdited', data: { ...about, replyId: 'r1', body: body('Fixed!'), editedBy: 'eve', editedAt: t0 } }]);
    });

    it('given a reply, when someone else edits its body, then 403', () => {
      spec
        .given([posted, replied])
        .when(updateReply('cleo', { body: body('Mine') }))
        .thenFails(403, 'only the author edits reply r1');
    });

    it('given a reply, when someone reacts to it without a body, then only the reaction', () => {
      spec
        .given([posted, replied])
        .when(updateReply('cleo', { addedReactions: ['👍'] }))
        .then([reacted('cleo', '👍', 'r1')]);
    });

    it.each([
      ['no such reply', [posted], 'r9'],
      ['a deleted reply', [posted, replied, replyDeleted], 'r1'],
    ])('given %s, when it is updated or deleted, then 404', (_what, given, replyId) => {
      spec
        .given(given)
        .when(updateReply('eve', { body: body('x') }, replyId))
        .thenFails(404, `no reply ${replyId} to comment c1`);
      spec
        .given(given)
        .when({ kind: 'DeleteReply', replyId, ...act('eve') })
        .thenFails(404, `no reply ${replyId} to comment c1`);
    });

    it('given a reply, when a space admin deletes it, then CommentReplyDeleted; someone else, 403 naming who may', () => {
      spec
        .given([posted, replied])
        .when({ kind: 'DeleteReply', replyId: 'r1', ...act('ada', admin) })
        .then([{ ...replyDeleted, data: { ...replyDeleted.data, deletedBy: 'ada' } }]);
      spec
        .given([posted, replied])
        .when({ kind: 'DeleteReply', replyId: 'r1', ...act('cleo') })
        .thenFails(403, 'only the author or a space admin deletes reply r1');
    });
  });

  describe('who may write', () => {
    it('given a comment, when its author deletes it, then CommentDeleted', () => {
      spec
        .given([posted])
        .when({ kind: 'DeleteComment', ...act('cleo') })
        .then([deleted]);
    });

    it('given a comment, when someone else deletes it, then 403 naming who may', () => {
      spec
        .given([posted])
        .when({ kind: 'DeleteComment', ...act('eve') })
        .thenFails(403, 'only the author or a space admin deletes comment c1');
    });

    it('given a comment, when someone else edits it, then 403 naming who may', () => {
      spec
        .given([posted])
        .when(update('eve', { body: body('x') }))
        .thenFails(403, 'only the author edits comment c1');
    });

    it('given a comment in a deleted space, when updated, then 409 saying to restore it', () => {
      spec
        .given([posted])
        .when(update('cleo', { resolved: true }, { ...commenter, spaceDeleted: true }))
        .thenFails(409, 'the space of comment c1 is deleted: restore it first');
    });

    it('given a comment the caller may not read, when updated, then 404', () => {
      spec
        .given([posted])
        .when(update('cleo', { resolved: true }, { ...commenter, read: false }))
        .thenFails(404, 'no comment c1');
    });

    it('given a deleted space, when someone posts, then 409 naming the space; a reader, 403 naming it', () => {
      const post = (access: CommentAccess): CommentCommand => ({
        kind: 'PostComment',
        scope: { spaceId: 's1', organizationId: 'o1', changeRequestId: null },
        target: { pageId: null, node: null, revision: 'r1' },
        body: body('?'),
        ...act('cleo', access),
      });
      spec
        .given([])
        .when(post({ ...commenter, spaceDeleted: true }))
        .thenFails(409, 'space s1 is deleted: restore it first');
      spec.given([]).when(post(reader)).thenFails(403, 'you may not comment in space s1: it needs the comment role');
    });

    it('given a reader, when they resolve, then 403 saying it needs the comment role; a reply of a space comment, 400', () => {
      spec
        .given([posted])
        .when(update('rita', { resolved: true }, reader))
        .thenFails(403, 'you may not resolve or reopen comment c1: it needs the comment role');
      spec
        .given([posted, replied])
        .when(updateReply('eve', { resolved: true }))
        .thenFails(400, /resolved can be set on the comment/);
    });
  });

  describe('status', () => {
    it('given an open comment, when set unresolved, then nothing', () => {
      spec
        .given([posted])
        .when(update('eve', { resolved: false }))
        .thenNothing();
    });
  });

  describe('reactions of several people', () => {
    it('given two people’s reaction, when one removes theirs, then the other’s stays (removing it later is a removal)', () => {
      spec
        .given([posted, reacted('rita'), reacted('eve'), unreacted('rita')])
        .when(update('eve', { removedReactions: ['👍'] }, reader))
        .then([unreacted('eve')]);
    });

    it('given one person’s reaction, when another adds the same emoji, then CommentReactionAdded for them', () => {
      spec
        .given([posted, reacted('rita')])
        .when(update('eve', { addedReactions: ['👍'] }, reader))
        .then([reacted('eve')]);
    });

    it('given a reaction, when its user removes it twice in a row, then the second is nothing', () => {
      spec
        .given([posted, reacted('rita'), unreacted('rita')])
        .when(update('rita', { removedReactions: ['👍'] }, reader))
        .thenNothing();
    });

    it('given a reaction, when its user removes and adds it in one request, then removed last (added first, then removed)', () => {
      spec
        .given([posted])
        .when(update('rita', { addedReactions: ['👍'], removedReactions: ['👍'] }, reader))
        .then([reacted('rita'), unreacted('rita')]);
    });

    it('given a long text that is no emoji, then the 400 quotes its first 60 characters', () => {
      spec
        .given([posted])
        .when(update('rita', { addedReactions: ['x'.repeat(80)] }, reader))
        .thenFails(400, new RegExp(`"${'x'.repeat(60)}" is not$`));
    });

    it('given a comment, when a removed reaction is not one emoji, then 400 naming the field', () => {
      spec
        .given([posted])
        .when(update('rita', { removedReactions: ['cafe'] }, reader))
        .thenFails(400, /removedReactions.*"cafe"/);
    });
  });
});
