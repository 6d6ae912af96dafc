import { deciderSpec } from '#testing';
import { commentDecider, type CommentAccess, type CommentCommand } from './comment.decider';
import type { BodyRef, CommentEvent } from './comment.events';

const t0 = '2026-01-01T00:00:00.000Z';
const spec = deciderSpec(commentDecider);
/** A body as commands and events carry it: its blob's hash and its markdown. */
const body = (text: string): BodyRef => ({ blob: Buffer.from(text).toString('hex').padEnd(64, '0').slice(0, 64), markdown: `${text}\n` });
const commenter: CommentAccess = { read: true, comment: true, admin: false, spaceDeleted: false };
const reader: CommentAccess = { ...commenter, comment: false };
const admin: CommentAccess = { ...commenter, admin: true };
const about = { commentId: 'c1', spaceId: 's1', organizationId: 'o1', changeRequestId: null };
const act = (by: string, access: CommentAccess = commenter) => ({ commentId: 'c1', by, access, now: t0 });

const posted: CommentEvent = {
  type: 'CommentPosted',
  data: {
    ...about,
    target: { pageId: 'p1', node: { id: 'k1', preview: 'Intro', fingerprint: 'f1' }, revision: 'r1' },
    body: body('Typo?'),
    postedBy: 'cleo',
    postedAt: t0,
  },
};
const resolved: CommentEvent = { type: 'CommentResolved', data: { ...about, resolvedBy: 'eve', resolvedAt: t0 } };
const replied: CommentEvent = {
  type: 'CommentReplyPosted',
  data: { ...about, replyId: 'r1', body: body('Fixed'), postedBy: 'eve', postedAt: t0 },
};
const update = (
  by: string,
  changes: Extract<CommentCommand, { kind: 'UpdateComment' }>['changes'],
  access = commenter,
): CommentCommand => ({ kind: 'UpdateComment', changes, ...act(by, access) });

describe('comment decider', () => {
  describe('posting', () => {
    const post = (access: CommentAccess): CommentCommand => ({
      kind: 'PostComment',
      scope: { spaceId: 's1', organizationId: 'o1', changeRequestId: null },
      target: { pageId: 'p1', node: { id: 'k1', preview: 'Intro', fingerprint: 'f1' }, revision: 'r1' },
      body: body('Typo?'),
      ...act('cleo', access),
    });

    it('given nothing, when a commenter posts, then CommentPosted', () => {
      spec.given([]).when(post(commenter)).then([posted]);
    });

    it('given nothing, when a reader posts, then 403', () => {
      spec.given([]).when(post(reader)).thenFails(403);
    });

    it('given nothing, when a commenter posts on the space as a whole (no page), then CommentPosted with no page', () => {
      const onSpace: CommentCommand = {
        kind: 'PostComment',
        scope: { spaceId: 's1', organizationId: 'o1', changeRequestId: null },
        target: { pageId: null, node: null, revision: 'r1' },
        body: body('Overall?'),
        ...act('cleo'),
      };
      spec
        .given([])
        .when(onSpace)
        .then([
          {
            type: 'CommentPosted',
            data: {
              ...about,
              target: { pageId: null, node: null, revision: 'r1' },
              body: body('Overall?'),
              postedBy: 'cleo',
              postedAt: t0,
            },
          },
        ]);
    });

    it('given a deleted space, when someone posts, then 409', () => {
      spec
        .given([])
        .when(post({ ...commenter, spaceDeleted: true }))
        .thenFails(409);
    });

    it('given the comment posted, when posted again (a retry), then nothing', () => {
      spec.given([posted]).when(post(commenter)).thenNothing();
    });
  });

  describe('state table', () => {
    it('given an open comment, when resolved, then CommentResolved', () => {
      spec
        .given([posted])
        .when(update('eve', { resolved: true }))
        .then([resolved]);
    });

    it('given a resolved comment, when set back to unresolved, then CommentReopened', () => {
      spec
        .given([posted, resolved])
        .when(update('eve', { resolved: false }))
        .then([{ type: 'CommentReopened', data: { ...about, reopenedBy: 'eve', reopenedAt: t0 } }]);
    });

    it('given a resolved comment, when resolved again, then nothing', () => {
      spec
        .given([posted, resolved])
        .when(update('eve', { resolved: true }))
        .thenNothing();
    });

    it('given a resolved comment, when someone replies, then the reply and CommentReopened', () => {
      spec
        .given([posted, resolved])
        .when({ kind: 'PostReply', replyId: 'r1', body: body('Fixed'), ...act('eve') })
        .then([replied, { type: 'CommentReopened', data: { ...about, reopenedBy: 'eve', reopenedAt: t0 } }]);
    });

    it('given a comment, when a reader resolves it, then 403', () => {
      spec
        .given([posted])
        .when(update('rita', { resolved: true }, reader))
        .thenFails(403);
    });

    it('given a reply on a space comment, when it sets resolved, then 400 (only change requests’ replies resolve)', () => {
      spec
        .given([posted, replied])
        .when({ kind: 'UpdateReply', replyId: 'r1', changes: { resolved: true }, mayResolve: false, ...act('eve') })
        .thenFails(400);
    });

    it('given a reply on a change request comment, when it sets resolved, then the thread is resolved', () => {
      spec
        .given([posted, replied])
        .when({ kind: 'UpdateReply', replyId: 'r1', changes: { resolved: true }, mayResolve: true, ...act('eve') })
        .then([resolved]);
    });
  });

  describe('who may do what', () => {
    it('given a comment, when someone else edits its body, then 403', () => {
      spec
        .given([posted])
        .when(update('eve', { body: body('Mine now') }))
        .thenFails(403);
    });

    it('given a comment, when its author edits the body, then CommentEdited', () => {
      spec
        .given([posted])
        .when(update('cleo', { body: body('Typo!') }))
        .then([{ type: 'CommentEdited', data: { ...about, body: body('Typo!'), editedBy: 'cleo', editedAt: t0 } }]);
    });

    it('given a comment, when someone else deletes it, then 403', () => {
      spec
        .given([posted])
        .when({ kind: 'DeleteComment', ...act('eve') })
        .thenFails(403);
    });

    it('given a comment, when a space admin deletes it, then CommentDeleted', () => {
      spec
        .given([posted])
        .when({ kind: 'DeleteComment', ...act('ada', admin) })
        .then([{ type: 'CommentDeleted', data: { ...about, deletedBy: 'ada', deletedAt: t0 } }]);
    });

    // Mutation pinned: dropping the `access.comment` check on PostReply.
    it('given a comment, when a reader replies, then 403 (replying needs the comment role)', () => {
      spec
        .given([posted])
        .when({ kind: 'PostReply', replyId: 'r2', body: body('Me too'), ...act('rita', reader) })
        .thenFails(403);
    });

    it('given a deleted comment, when replied to, then 404', () => {
      spec
        .given([posted, { type: 'CommentDeleted', data: { ...about, deletedBy: 'cleo', deletedAt: t0 } }])
        .when({ kind: 'PostReply', replyId: 'r2', body: body('?'), ...act('eve') })
        .thenFails(404);
    });

    it('given a reply, when someone else deletes it, then 403; its author may', () => {
      spec
        .given([posted, replied])
        .when({ kind: 'DeleteReply', replyId: 'r1', ...act('cleo') })
        .thenFails(403);
      spec
        .given([posted, replied])
        .when({ kind: 'DeleteReply', replyId: 'r1', ...act('eve') })
        .then([{ type: 'CommentReplyDeleted', data: { ...about, replyId: 'r1', deletedBy: 'eve', deletedAt: t0 } }]);
    });
  });

  describe('reactions', () => {
    const added = (user: string, emoji: string, replyId: string | null = null): CommentEvent => ({
      type: 'CommentReactionAdded',
      data: { ...about, replyId, emoji, user, reactedAt: t0 },
    });

    it('given a comment, when a reader reacts, then CommentReactionAdded', () => {
      spec
        .given([posted])
        .when(update('rita', { addedReactions: ['👍'] }, reader))
        .then([added('rita', '👍')]);
    });

    it('given a reaction, when the same person adds it again, then nothing (one per person per emoji)', () => {
      spec
        .given([posted, added('rita', '👍')])
        .when(update('rita', { addedReactions: ['👍'] }, reader))
        .thenNothing();
    });

    it('given no reaction, when it is removed, then nothing', () => {
      spec
        .given([posted])
        .when(update('rita', { removedReactions: ['👍'] }, reader))
        .thenNothing();
    });

    it('given a reaction added by its codepoint, then it is stored as the character', () => {
      spec
        .given([posted])
        .when(update('rita', { addedReactions: ['1f44d'] }, reader))
        .then([added('rita', '👍')]);
    });

    it('given a reaction added by its codepoint, when removed by its character, then CommentReactionRemoved (one reaction)', () => {
      spec
        .given([posted, added('rita', '👍')])
        .when(update('rita', { removedReactions: ['👍'] }, reader))
        .then([{ type: 'CommentReactionRemoved', data: { ...about, replyId: null, emoji: '👍', user: 'rita', removedAt: t0 } }]);
    });

    it('given the same emoji twice in one request, as character and codepoint, then one reaction', () => {
      spec
        .given([posted])
        .when(update('rita', { addedReactions: ['🎉', '1F389'] }, reader))
        .then([added('rita', '🎉')]);
    });

    it('given a reaction stored as ❤ before emoji had one form, when removed as 2764, then CommentReactionRemoved of ❤️', () => {
      spec
        .given([posted, added('rita', '❤')])
        .when(update('rita', { removedReactions: ['2764'] }, reader))
        .then([{ type: 'CommentReactionRemoved', data: { ...about, replyId: null, emoji: '❤️', user: 'rita', removedAt: t0 } }]);
    });

    it('given a comment, when a reaction is not one emoji, then 400 naming it', () => {
      spec
        .given([posted])
        .when(update('rita', { addedReactions: ['cafe'] }, reader))
        .thenFails(400, /addedReactions.*"cafe"/);
    });

    it('given a reaction on a reply, when removed by its user, then CommentReactionRemoved on that reply', () => {
      spec
        .given([posted, replied, added('rita', '👀', 'r1')])
        .when({ kind: 'UpdateReply', replyId: 'r1', changes: { removedReactions: ['👀'] }, mayResolve: false, ...act('rita', reader) })
        .then([{ type: 'CommentReactionRemoved', data: { ...about, replyId: 'r1', emoji: '👀', user: 'rita', removedAt: t0 } }]);
    });
  });
});
