import { deciderSpec } from '#testing';
import {
  changeRequestDecider,
  currentReviews,
  numberingDecider,
  refuseMerge,
  refuseWriter,
  type ChangeRequestCommand,
  type ChangeRequestSpaceFacts,
  type ChangeRequestState,
} from './changerequest.decider';
import type { ChangeRequestEvent, ChangeRequestStatus, LineRevision } from './changerequest.events';

const t0 = '2026-01-01T00:00:00.000Z';
const spec = deciderSpec(changeRequestDecider);
const editor: ChangeRequestSpaceFacts = { organizationId: 'o1', deleted: false, editMode: 'live', mayEdit: true, mayReview: false };
const reviewer: ChangeRequestSpaceFacts = { ...editor, mayReview: true };
const reader: ChangeRequestSpaceFacts = { ...editor, mayEdit: false };
const about = { changeRequestId: 'cr1', spaceId: 's1', organizationId: 'o1' };

const created: ChangeRequestEvent = {
  type: 'ChangeRequestCreated',
  data: {
    ...about,
    number: 1,
    subject: 'Typos',
    status: 'draft',
    revisionInitial: 'main1',
    tree: 'tree-main1',
    createdBy: 'eve',
    createdAt: t0,
  },
};
const revision = (revisionId: string, parents: string[], tree = `tree-${revisionId}`): LineRevision => ({
  revisionId,
  parents,
  revisionType: 'edits',
  tree,
  pages: { created: [], updated: ['p1'], deleted: [], counts: { created: 0, updated: 1, deleted: 0 } },
  source: { kind: 'batch' },
});
const edited: ChangeRequestEvent = {
  type: 'ChangeRequestContentEdited',
  data: { ...about, revision: revision('cr-r1', ['main1']), editedBy: 'eve', editedAt: t0 },
};
const statusChanged = (from: ChangeRequestStatus, to: Exclude<ChangeRequestStatus, 'merged'>): ChangeRequestEvent => ({
  type: 'ChangeRequestStatusChanged',
  data: { ...about, from, to, changedBy: 'eve', changedAt: t0 },
});
const merged: ChangeRequestEvent = {
  type: 'ChangeRequestMerged',
  data: { ...about, revisionMerged: 'main2', mergedHead: 'cr-r1', mergedBy: 'ada', mergedAt: t0 },
};
const approvedBy = (user: string, onRevision: string): ChangeRequestEvent => ({
  type: 'ChangeRequestReviewed',
  data: { ...about, reviewId: `rv-${user}-${onRevision}`, status: 'approved', revision: onRevision, reviewedBy: user, reviewedAt: t0 },
});

const act = (space: ChangeRequestSpaceFacts, by = 'eve') => ({ changeRequestId: 'cr1', space, by, now: t0 });
const setStatus = (status: ChangeRequestStatus, space = editor): ChangeRequestCommand => ({
  kind: 'EditChangeRequest',
  status,
  ...act(space),
});
const commit = (
  base: string,
  tree = 'tree-cr-r2',
  extra: Partial<Extract<ChangeRequestCommand, { kind: 'CommitChangeRequestRevision' }>> = {},
): ChangeRequestCommand => ({
  kind: 'CommitChangeRequestRevision',
  base,
  revision: revision('cr-r2', [base], tree),
  ...act(editor),
  ...extra,
});
const fold = (events: ChangeRequestEvent[]): ChangeRequestState =>
  events.reduce(changeRequestDecider.evolve, changeRequestDecider.initialState());

describe('change request decider', () => {
  describe('CreateChangeRequest', () => {
    const create = (space: ChangeRequestSpaceFacts): ChangeRequestCommand => ({
      kind: 'CreateChangeRequest',
      spaceId: 's1',
      number: 1,
      subject: 'Typos',
      main: { revisionId: 'main1', tree: 'tree-main1' },
      ...act(space),
    });

    it('given nothing, when an editor creates a request, then a draft branching from main', () => {
      spec.given([]).when(create(editor)).then([created]);
    });

    it('given nothing, when a reader creates a request, then 403', () => {
      spec.given([]).when(create(reader)).thenFails(403);
    });

    it('given a deleted space, when a request is created, then 409', () => {
      spec
        .given([])
        .when(create({ ...editor, deleted: true }))
        .thenFails(409);
    });

    it('given the request exists, when it is created again (a retry), then nothing', () => {
      spec.given([created]).when(create(editor)).thenNothing();
    });
  });

  describe('status moves', () => {
    it.each([
      ['draft', 'open'],
      ['draft', 'archived'],
      ['open', 'draft'],
      ['open', 'archived'],
      ['archived', 'open'],
      ['archived', 'draft'],
    ] as const)('given a %s request, when set to %s, then the status changes', (from, to) => {
      const history = from === 'draft' ? [created] : [created, statusChanged('draft', from)];
      spec
        .given(history)
        .when(setStatus(to))
        .then([statusChanged(from, to)]);
    });

    it('given a request, when set to its own status, then nothing', () => {
      spec.given([created]).when(setStatus('draft')).thenNothing();
    });

    it('given a request, when set to merged through an edit, then 409 (only a merge merges)', () => {
      spec.given([created]).when(setStatus('merged')).thenFails(409);
    });

    it('given a merged request, when reopened, then 409 (merged is final)', () => {
      spec.given([created, merged]).when(setStatus('open')).thenFails(409);
    });

    it('given a request, when a reader changes its status, then 403', () => {
      spec.given([created]).when(setStatus('open', reader)).thenFails(403);
    });

    it('given no request, when its status is set, then 404', () => {
      spec.given([]).when(setStatus('open')).thenFails(404);
    });
  });

  describe('content edits', () => {
    it('given a request at main1, when a revision is committed on its head, then ChangeRequestContentEdited', () => {
      spec
        .given([created])
        .when(commit('main1'))
        .then([
          { type: 'ChangeRequestContentEdited', data: { ...about, revision: revision('cr-r2', ['main1']), editedBy: 'eve', editedAt: t0 } },
        ]);
    });

    it('given a request whose head moved, when a revision built on the old head is committed, then 409 (stale: built again)', () => {
      spec.given([created, edited]).when(commit('main1')).thenFails(409);
    });

    it('given a request, when If-Match names another revision, then 412', () => {
      spec
        .given([created, edited])
        .when(commit('cr-r1', 'tree-x', { ifMatch: 'main1' }))
        .thenFails(412);
    });

    it('given a request, when the committed tree is its head tree, then nothing', () => {
      spec.given([created, edited]).when(commit('cr-r1', 'tree-cr-r1')).thenNothing();
    });

    it('given an archived request, when content is committed, then 409', () => {
      spec
        .given([created, statusChanged('draft', 'archived')])
        .when(commit('main1'))
        .thenFails(409);
    });

    it('given a merged request, when content is committed, then 409', () => {
      spec.given([created, edited, merged]).when(commit('cr-r1')).thenFails(409);
    });
  });

  describe('update from main', () => {
    const update = (base: string, main: string): ChangeRequestCommand => ({
      kind: 'UpdateChangeRequest',
      base,
      main: { revisionId: main, tree: `tree-${main}` },
      revision: { ...revision('cr-u1', [base, main]), revisionType: 'update' },
      ...act(editor),
    });

    it('given a request behind main, when updated, then ChangeRequestUpdated naming the new ancestor', () => {
      spec
        .given([created, edited])
        .when(update('cr-r1', 'main2'))
        .then([
          {
            type: 'ChangeRequestUpdated',
            data: {
              ...about,
              revision: { ...revision('cr-u1', ['cr-r1', 'main2']), revisionType: 'update' },
              mergedAncestor: 'main2',
              mergedAncestorTree: 'tree-main2',
              updatedBy: 'eve',
              updatedAt: t0,
            },
          },
        ]);
    });

    it('given a request already on main, when updated, then nothing', () => {
      spec.given([created, edited]).when(update('cr-r1', 'main1')).thenNothing();
    });

    it('given an update, then the request builds on the new main revision', () => {
      const state = fold([
        created,
        edited,
        {
          type: 'ChangeRequestUpdated',
          data: {
            ...about,
            revision: revision('cr-u1', ['cr-r1', 'main2']),
            mergedAncestor: 'main2',
            mergedAncestorTree: 'tree-main2',
            updatedBy: 'eve',
            updatedAt: t0,
          },
        },
      ]);
      expect(state.base).toEqual({ revisionId: 'main2', tree: 'tree-main2' });
      expect(state.head.revisionId).toBe('cr-u1');
    });
  });

  describe('reviews', () => {
    const review = (space: ChangeRequestSpaceFacts, by: string): ChangeRequestCommand => ({
      kind: 'ReviewChangeRequest',
      reviewId: 'rv1',
      status: 'approved',
      ...act(space, by),
    });

    it('given a request, when a reviewer approves, then the review names the head', () => {
      spec
        .given([created, edited])
        .when(review(reviewer, 'ada'))
        .then([
          {
            type: 'ChangeRequestReviewed',
            data: { ...about, reviewId: 'rv1', status: 'approved', revision: 'cr-r1', reviewedBy: 'ada', reviewedAt: t0 },
          },
        ]);
    });

    it('given a request, when its author reviews it, then 403', () => {
      spec.given([created]).when(review(reviewer, 'eve')).thenFails(403);
    });

    it('given a request, when someone below review reviews it, then 403', () => {
      spec.given([created]).when(review(editor, 'ada')).thenFails(403);
    });

    it('given an approval and a later revision, then the approval no longer counts', () => {
      expect(currentReviews(fold([created, approvedBy('ada', 'main1'), edited]))).toEqual([]);
    });

    it('given a reviewer requested twice, then one request', () => {
      spec
        .given([
          created,
          { type: 'ChangeRequestReviewersRequested', data: { ...about, reviewers: ['ada'], requestedBy: 'eve', requestedAt: t0 } },
        ])
        .when({ kind: 'RequestReviewers', reviewers: ['ada'], notMembers: [], ...act(editor) })
        .thenNothing();
    });

    it('given a request, when an editor asks members to review, then they are requested', () => {
      spec
        .given([created])
        .when({ kind: 'RequestReviewers', reviewers: ['ada', 'bob'], notMembers: [], ...act(editor) })
        .then([
          { type: 'ChangeRequestReviewersRequested', data: { ...about, reviewers: ['ada', 'bob'], requestedBy: 'eve', requestedAt: t0 } },
        ]);
    });

    it('given a request, when someone outside the organization is named as a reviewer, then 400 naming them and nobody is requested', () => {
      spec
        .given([created])
        .when({ kind: 'RequestReviewers', reviewers: ['ada', 'zed'], notMembers: ['zed'], ...act(editor) })
        .thenFails(400, /zed is not a member of organization o1/);
    });

    it('given a request, when a reader names someone outside the organization, then 403 (the refusal tells nothing about them)', () => {
      spec
        .given([created])
        .when({ kind: 'RequestReviewers', reviewers: ['zed'], notMembers: ['zed'], ...act(reader) })
        .thenFails(403);
    });

    it('given no such requested reviewer, when removed, then 404', () => {
      spec
        .given([created])
        .when({ kind: 'RemoveReviewer', reviewer: 'ada', ...act(editor) })
        .thenFails(404);
    });
  });

  describe('who may make a write (asked before If-Match is compared: 403 before 412)', () => {
    it.each(['edit', 'update', 'remove-reviewer'] as const)('given a reader, when they %s, then 403', (write) => {
      expect(refuseWriter('cr1', write, reader)?.status).toBe(403);
    });

    it.each(['edit', 'update', 'remove-reviewer'] as const)('given an editor, when they %s, then nothing is refused', (write) => {
      expect(refuseWriter('cr1', write, editor)).toBeNull();
    });

    it('given an editor below review, when they merge, then 403 naming the review role', () => {
      expect(refuseWriter('cr1', 'merge', editor)?.message).toMatch(/review role/);
    });

    it('given a reviewer, when they merge, then nothing is refused', () => {
      expect(refuseWriter('cr1', 'merge', reviewer)).toBeNull();
    });

    it('given a reader, when the decider removes a requested reviewer, then 403 as the rule says, before the reviewer is looked up', () => {
      spec
        .given([created])
        .when({ kind: 'RemoveReviewer', reviewer: 'ada', ...act(reader) })
        .thenFails(403, /reviewers/);
    });
  });

  describe('merge rules', () => {
    it('given a draft request and a reviewer, then it may be merged', () => {
      expect(refuseMerge('cr1', fold([created, edited]), reviewer, false)).toBeNull();
    });

    it('given an editor below review, then merging is refused (403)', () => {
      expect(refuseMerge('cr1', fold([created]), editor, false)?.status).toBe(403);
    });

    it('given an archived request, then merging is refused (409)', () => {
      expect(refuseMerge('cr1', fold([created, statusChanged('draft', 'archived')]), reviewer, false)?.status).toBe(409);
    });

    it('given a locked space, then merging is refused (409)', () => {
      expect(refuseMerge('cr1', fold([created]), { ...reviewer, editMode: 'locked' }, false)?.status).toBe(409);
    });

    it('given approval required and none on the head, then merging is refused (409)', () => {
      expect(refuseMerge('cr1', fold([created, approvedBy('ada', 'main1'), edited]), reviewer, true)?.message).toMatch(/needs an approval/);
    });

    it('given approval required and an approval of the head, then it may be merged', () => {
      expect(refuseMerge('cr1', fold([created, edited, approvedBy('ada', 'cr-r1')]), reviewer, true)).toBeNull();
    });

    it('given a merge recorded, when recorded again (the reactor), then nothing', () => {
      spec
        .given([created, edited, merged])
        .when({ kind: 'RecordMerge', revisionMerged: 'main2', mergedHead: 'cr-r1', ...act(reviewer, 'ada') })
        .thenNothing();
    });

    it('given a request, when its merge is recorded, then ChangeRequestMerged and the status merged', () => {
      spec
        .given([created, edited])
        .when({ kind: 'RecordMerge', revisionMerged: 'main2', mergedHead: 'cr-r1', ...act(reviewer, 'ada') })
        .then([merged]);
      expect(fold([created, edited, merged]).status).toBe('merged');
    });
  });
});

describe('change request numbering', () => {
  const numbers = deciderSpec(numberingDecider);

  it('given two requests numbered, when a third is numbered, then it gets 3', () => {
    numbers
      .given([
        { type: 'ChangeRequestNumbered', data: { spaceId: 's1', changeRequestId: 'a', number: 1 } },
        { type: 'ChangeRequestNumbered', data: { spaceId: 's1', changeRequestId: 'b', number: 2 } },
      ])
      .when({ kind: 'NumberChangeRequest', spaceId: 's1', changeRequestId: 'c' })
      .then([{ type: 'ChangeRequestNumbered', data: { spaceId: 's1', changeRequestId: 'c', number: 3 } }]);
  });

  it('given a request numbered, when it is numbered again (a retry), then nothing', () => {
    numbers
      .given([{ type: 'ChangeRequestNumbered', data: { spaceId: 's1', changeRequestId: 'a', number: 1 } }])
      .when({ kind: 'NumberChangeRequest', spaceId: 's1', changeRequestId: 'a' })
      .thenNothing();
  });
});

describe('change request decider: description and links', () => {
  const edit = (changes: Partial<Extract<ChangeRequestCommand, { kind: 'EditChangeRequest' }>>, space = editor): ChangeRequestCommand => ({
    kind: 'EditChangeRequest',
    ...changes,
    ...act(space),
  });
  const hash = 'd'.repeat(64);
  const linksChanged = (links: Array<{ id: string; url: string; title?: string }>): ChangeRequestEvent => ({
    type: 'ChangeRequestLinksChanged',
    data: { ...about, links, changedBy: 'eve', changedAt: t0 },
  });

  it('given a request, when its description is set, then ChangeRequestDescriptionChanged with the blob’s hash', () => {
    spec
      .given([created])
      .when(edit({ description: hash }))
      .then([{ type: 'ChangeRequestDescriptionChanged', data: { ...about, description: hash, changedBy: 'eve', changedAt: t0 } }]);
  });

  it('given a description, when the same is set again, then nothing', () => {
    spec
      .given([created, { type: 'ChangeRequestDescriptionChanged', data: { ...about, description: hash, changedBy: 'eve', changedAt: t0 } }])
      .when(edit({ description: hash }))
      .thenNothing();
  });

  it('given a reader, when they set the description, then 403', () => {
    spec
      .given([created])
      .when(edit({ description: hash }, reader))
      .thenFails(403);
  });

  it('given a merged request, when its description is set, then 409', () => {
    spec
      .given([created, merged])
      .when(edit({ description: hash }))
      .thenFails(409);
  });

  it('given a request, when links without ids are sent, then each gets the next new id', () => {
    spec
      .given([created])
      .when(
        edit({
          links: [{ url: 'https://tickets.example/1', title: 'Ticket' }, { url: 'https://tickets.example/2' }],
          newLinkIds: ['l1', 'l2'],
        }),
      )
      .then([
        linksChanged([
          { id: 'l1', url: 'https://tickets.example/1', title: 'Ticket' },
          { id: 'l2', url: 'https://tickets.example/2' },
        ]),
      ]);
  });

  it('given links, when one is sent back with its id and the other left out, then the kept one, changed, alone', () => {
    spec
      .given([
        created,
        linksChanged([
          { id: 'l1', url: 'https://tickets.example/1' },
          { id: 'l2', url: 'https://tickets.example/2' },
        ]),
      ])
      .when(edit({ links: [{ id: 'l2', url: 'https://tickets.example/2b' }], newLinkIds: [] }))
      .then([linksChanged([{ id: 'l2', url: 'https://tickets.example/2b' }])]);
  });

  it('given links, when the same list is sent, then nothing', () => {
    spec
      .given([created, linksChanged([{ id: 'l1', url: 'https://tickets.example/1' }])])
      .when(edit({ links: [{ id: 'l1', url: 'https://tickets.example/1' }], newLinkIds: [] }))
      .thenNothing();
  });

  it('given a request, when a link names an id it does not have, then 400 naming it', () => {
    spec
      .given([created])
      .when(edit({ links: [{ id: 'nope', url: 'https://tickets.example/1' }], newLinkIds: [] }))
      .thenFails(400, /links\[0\]\.id: change request cr1 has no link nope/);
  });

  it('given a request, when more than ten links are sent, then 400', () => {
    const links = Array.from({ length: 11 }, (_, i) => ({ url: `https://tickets.example/${i}` }));
    spec
      .given([created])
      .when(edit({ links, newLinkIds: links.map((_, i) => `l${i}`) }))
      .thenFails(400, /at most 10 links/);
  });
});
