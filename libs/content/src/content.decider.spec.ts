import { deciderSpec } from '../../testing/src';
import { contentDecider, initialRevisionId, type ContentCommand, type ContentSpaceFacts } from './content.decider';
import { touchedPages, type ContentEvent } from './content.events';

const now = '2026-01-01T00:00:00.000Z';
const spec = deciderSpec(contentDecider);
const spaceId = 's1';
const initial = initialRevisionId(spaceId);
const live: ContentSpaceFacts = { organizationId: 'o1', editMode: 'live', deleted: false, mayEdit: true };
const pages = touchedPages({ created: ['p1'], updated: [], deleted: [] });

const commit = (overrides: Partial<ContentCommand> = {}): ContentCommand => ({
  kind: 'CommitRevision',
  spaceId,
  revisionId: 'r1',
  base: initial,
  revisionType: 'edits',
  tree: 'tree-1',
  pages,
  source: { kind: 'batch' },
  space: live,
  by: 'ada',
  now,
  ...overrides,
});

const created = (revisionId: string, parents: string[], tree: string): ContentEvent => ({
  type: 'ContentRevisionCreated',
  data: { spaceId, organizationId: 'o1', revisionId, parents, revisionType: 'edits', tree, createdAt: now, createdBy: 'ada', pages, source: { kind: 'batch' } },
});

describe('content decider', () => {
  it('given a new space, when a revision is committed on its initial revision, then it is created with that parent', () => {
    spec.given([]).when(commit()).then([created('r1', [initial], 'tree-1')]);
  });

  it('given a revision, when the next is committed on it, then its parent is that revision', () => {
    spec.given([created('r1', [initial], 'tree-1')]).when(commit({ revisionId: 'r2', base: 'r1', tree: 'tree-2' })).then([created('r2', ['r1'], 'tree-2')]);
  });

  it('given a revision, when a commit was built on an older head, then it is refused as stale (409) for the commands service to rebuild', () => {
    spec.given([created('r1', [initial], 'tree-1')]).when(commit({ revisionId: 'r2', base: initial })).thenFails(409, /moved on/);
  });

  it('given a revision, when If-Match names another revision, then 412', () => {
    spec.given([created('r1', [initial], 'tree-1')]).when(commit({ revisionId: 'r2', base: 'r1', ifMatch: initial })).thenFails(412);
  });

  it('given a new space, when If-Match names its initial revision, then the commit goes through', () => {
    spec.given([]).when(commit({ ifMatch: initial })).then([created('r1', [initial], 'tree-1')]);
  });

  it('given a revision, when the same tree is committed again as edits, then nothing happens', () => {
    spec.given([created('r1', [initial], 'tree-1')]).when(commit({ revisionId: 'r2', base: 'r1', tree: 'tree-1' })).thenNothing();
  });

  it('given a locked space, when a revision is committed, then 409', () => {
    spec.given([]).when(commit({ space: { ...live, editMode: 'locked' } })).thenFails(409, /locked/);
  });

  it('given a deleted space, when a revision is committed, then 409 asking to restore it first', () => {
    spec.given([]).when(commit({ space: { ...live, deleted: true } })).thenFails(409, /restore/);
  });

  it('given a caller who may not edit, when a revision is committed, then 403', () => {
    spec.given([]).when(commit({ space: { ...live, mayEdit: false } })).thenFails(403);
  });

  it('given a merge, when committed with another parent, then the revision has both parents', () => {
    spec
      .given([])
      .when(commit({ revisionType: 'merge', otherParents: ['cr-head'] }))
      .then([{ type: 'ContentRevisionCreated', data: { ...created('r1', [initial, 'cr-head'], 'tree-1').data, revisionType: 'merge' } }]);
  });
});

describe('the initial revision id', () => {
  it('is an id of the entity shape, the same for the same space and different for another', () => {
    expect(initial).toMatch(/^[0-9A-Za-z]{20}$/);
    expect(initialRevisionId(spaceId)).toBe(initial);
    expect(initialRevisionId('s2')).not.toBe(initial);
  });
});

describe('touched pages in an event', () => {
  it('keep at most 100 ids per list, with the exact counts', () => {
    const many = Array.from({ length: 250 }, (_, index) => `p${index}`);
    const touched = touchedPages({ created: many, updated: [], deleted: ['x'] });
    expect(touched.created).toHaveLength(100);
    expect(touched.counts).toEqual({ created: 250, updated: 0, deleted: 1 });
  });
});
