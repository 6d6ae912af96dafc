import { inStream, projectionSpec } from '#testing';
import type { ChangeRequestEvent } from './changerequest.events';
import { CHANGE_REQUEST_COUNTS, CHANGE_REQUEST_REVIEWS, CHANGE_REQUESTS, changeRequestProjection } from './changerequest.projections';

const t0 = '2026-01-01T00:00:00.000Z';
const t1 = '2026-01-02T00:00:00.000Z';
const spec = projectionSpec(changeRequestProjection);
const about = (changeRequestId: string) => ({ changeRequestId, spaceId: 's1', organizationId: 'o1' });
const created = (changeRequestId: string, number: number): ChangeRequestEvent => ({
  type: 'ChangeRequestCreated',
  data: {
    ...about(changeRequestId),
    number,
    subject: `Request ${number}`,
    status: 'draft',
    revisionInitial: 'main1',
    tree: 'tree-main1',
    createdBy: 'eve',
    createdAt: t0,
  },
});
const edited: ChangeRequestEvent = {
  type: 'ChangeRequestContentEdited',
  data: {
    ...about('cr1'),
    revision: {
      revisionId: 'cr-r1',
      parents: ['main1'],
      revisionType: 'edits',
      tree: 'tree-cr-r1',
      pages: { created: [], updated: [], deleted: [], counts: { created: 0, updated: 0, deleted: 0 } },
      source: { kind: 'batch' },
    },
    editedBy: 'ada',
    editedAt: t1,
  },
};
const first = inStream('changerequest-cr1', [
  created('cr1', 1),
  edited,
  { type: 'ChangeRequestStatusChanged', data: { ...about('cr1'), from: 'draft', to: 'open', changedBy: 'eve', changedAt: t1 } },
  {
    type: 'ChangeRequestReviewed',
    data: { ...about('cr1'), reviewId: 'rv1', status: 'approved', revision: 'cr-r1', reviewedBy: 'rob', reviewedAt: t1 },
  },
  { type: 'ChangeRequestMerged', data: { ...about('cr1'), revisionMerged: 'main2', mergedHead: 'cr-r1', mergedBy: 'rob', mergedAt: t1 } },
]);
const second = inStream('changerequest-cr2', [created('cr2', 2)]);
const third = inStream('changerequest-cr3', [
  created('cr3', 3),
  { type: 'ChangeRequestStatusChanged', data: { ...about('cr3'), from: 'draft', to: 'open', changedBy: 'eve', changedAt: t1 } },
]);

describe('change request projection', () => {
  it('given a request edited, opened, reviewed and merged, then its document', async () => {
    await spec.given(first).then({
      [CHANGE_REQUESTS]: [
        expect.objectContaining({
          _id: 'cr1',
          number: 1,
          status: 'merged',
          revision: 'cr-r1',
          revisionInitial: 'main1',
          revisionMerged: 'main2',
          mergedBy: 'rob',
          mergedAt: t1,
          contributors: ['eve', 'ada'],
          streamRevision: 4,
        }),
      ],
    });
  });

  it('given a review, then its document names the revision reviewed', async () => {
    await spec.given(first).then({
      [CHANGE_REQUEST_REVIEWS]: [
        expect.objectContaining({ _id: 'rv1', changeRequestId: 'cr1', reviewer: 'rob', status: 'approved', revision: 'cr-r1' }),
      ],
    });
  });

  it('given requests in several statuses, then the space counts them by status', async () => {
    await spec
      .given([...first, ...second, ...third])
      .then({ [CHANGE_REQUEST_COUNTS]: [expect.objectContaining({ _id: 's1', total: 3, open: 1, draft: 1 })] });
  });

  it('given the events applied twice, then the documents are unchanged', async () => {
    await spec.given([...first, ...second, ...third]).thenIdempotent();
  });

  const deletion = { type: 'SpaceDeleted', data: { spaceId: 's1', organizationId: 'o1', title: 'Docs', deletedAt: t1 } } as const;
  const restoration = { type: 'SpaceRestored', data: { spaceId: 's1', organizationId: 'o1', title: 'Docs', restoredAt: t1 } } as const;

  it('given the space deleted, then its requests are marked as in a deleted space', async () => {
    await spec
      .given([...second, ...inStream('space-s1', [deletion])])
      .then({ [CHANGE_REQUESTS]: [expect.objectContaining({ _id: 'cr2', spaceDeleted: true })] });
  });

  it('given the space deleted then restored, then its requests are no longer marked', async () => {
    await spec
      .given([...second, ...inStream('space-s1', [deletion, restoration])])
      .then({ [CHANGE_REQUESTS]: [expect.not.objectContaining({ spaceDeleted: true })] });
  });

  it('given the space purged, then its requests are tombstones and its counts gone', async () => {
    const purged = inStream('space-s1', [
      { type: 'SpacePurged', data: { spaceId: 's1', organizationId: 'o1', title: 'Docs', purgedAt: t1 } },
    ]);
    await spec
      .given([...second, ...purged])
      .then({ [CHANGE_REQUESTS]: [expect.objectContaining({ _id: 'cr2', purged: true })], [CHANGE_REQUEST_COUNTS]: [] });
  });

  it('given a description and links set, then the request keeps the description’s hash and the links, and counts them as an update', async () => {
    await spec
      .given(
        inStream('changerequest-cr2', [
          created('cr2', 2),
          {
            type: 'ChangeRequestDescriptionChanged',
            data: { ...about('cr2'), description: 'd'.repeat(64), changedBy: 'eve', changedAt: t1 },
          },
          {
            type: 'ChangeRequestLinksChanged',
            data: {
              ...about('cr2'),
              links: [{ id: 'l1', url: 'https://tickets.example/1', title: 'Ticket' }],
              changedBy: 'eve',
              changedAt: t1,
            },
          },
        ]),
      )
      .then({
        [CHANGE_REQUESTS]: [
          expect.objectContaining({
            _id: 'cr2',
            description: 'd'.repeat(64),
            links: [{ id: 'l1', url: 'https://tickets.example/1', title: 'Ticket' }],
            updatedAt: t1,
          }),
        ],
      });
  });
});
