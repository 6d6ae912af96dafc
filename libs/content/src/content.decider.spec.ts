import { deciderSpec } from '#testing';
import {
  contentDecider,
  initialRevisionId,
  refuseStaleHead,
  type CommitRevision,
  type ContentSpaceFacts,
  type RecordDependencyUpdate,
} from './content.decider';
import { touchedPages, type ContentEvent, type RevisionData } from './content.events';

const now = '2026-01-01T00:00:00.000Z';
const spec = deciderSpec(contentDecider);
const spaceId = 's1';
const initial = initialRevisionId(spaceId);
const live: ContentSpaceFacts = { organizationId: 'o1', editMode: 'live', deleted: false, mayEdit: true };
const pages = touchedPages({ created: ['p1'], updated: [], deleted: [] });

const commit = (overrides: Partial<CommitRevision> = {}): CommitRevision => ({
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

const created = (revisionId: string, parents: string[], tree: string, createdAt = now): ContentEvent & { data: RevisionData } => ({
  type: 'ContentRevisionCreated',
  data: {
    spaceId,
    organizationId: 'o1',
    revisionId,
    parents,
    revisionType: 'edits',
    tree,
    createdAt,
    createdBy: 'ada',
    pages,
    source: { kind: 'batch' },
  },
});

describe('content decider', () => {
  it('given a new space, when a revision is committed on its initial revision, then it is created with that parent', () => {
    spec
      .given([])
      .when(commit())
      .then([created('r1', [initial], 'tree-1')]);
  });

  it('given a revision, when the next is committed on it, then its parent is that revision', () => {
    spec
      .given([created('r1', [initial], 'tree-1')])
      .when(commit({ revisionId: 'r2', base: 'r1', tree: 'tree-2' }))
      .then([created('r2', ['r1'], 'tree-2')]);
  });

  it('given a revision, when a commit was built on an older head, then it is refused as stale (409) for the command handler to rebuild', () => {
    spec
      .given([created('r1', [initial], 'tree-1')])
      .when(commit({ revisionId: 'r2', base: initial }))
      .thenFails(409, /moved on/);
  });

  it('given a revision, when If-Match names another revision, then 412', () => {
    spec
      .given([created('r1', [initial], 'tree-1')])
      .when(commit({ revisionId: 'r2', base: 'r1', ifMatch: initial }))
      .thenFails(412);
  });

  it('given a new space, when If-Match names its initial revision, then the commit goes through', () => {
    spec
      .given([])
      .when(commit({ ifMatch: initial }))
      .then([created('r1', [initial], 'tree-1')]);
  });

  it('given a revision, when the same tree is committed again as edits, then nothing happens', () => {
    spec
      .given([created('r1', [initial], 'tree-1')])
      .when(commit({ revisionId: 'r2', base: 'r1', tree: 'tree-1' }))
      .thenNothing();
  });

  it('given a locked space, when a revision is committed, then 409', () => {
    spec
      .given([])
      .when(commit({ space: { ...live, editMode: 'locked' } }))
      .thenFails(409, /locked/);
  });

  it('given a deleted space, when a revision is committed, then 409 asking to restore it first', () => {
    spec
      .given([])
      .when(commit({ space: { ...live, deleted: true } }))
      .thenFails(409, /restore/);
  });

  it('given a caller who may not edit, when a revision is committed, then 403', () => {
    spec
      .given([])
      .when(commit({ space: { ...live, mayEdit: false } }))
      .thenFails(403);
  });

  it('given a merge, when committed with another parent, then the revision has both parents', () => {
    spec
      .given([])
      .when(commit({ revisionType: 'merge', otherParents: ['cr-head'] }))
      .then([{ type: 'ContentRevisionCreated', data: { ...created('r1', [initial, 'cr-head'], 'tree-1').data, revisionType: 'merge' } }]);
  });
});

describe('a write pinned by If-Match (refuseStaleHead, asked before an import fetches anything)', () => {
  it('given no If-Match, then nothing is refused', () => {
    expect(refuseStaleHead(spaceId, undefined, 'r1')).toBeNull();
  });

  it('given If-Match naming the head, then nothing is refused', () => {
    expect(refuseStaleHead(spaceId, 'r1', 'r1')).toBeNull();
  });

  it('given If-Match naming another revision, then 412 naming both revisions', () => {
    const refused = refuseStaleHead(spaceId, initial, 'r1');
    expect({ status: refused?.status, message: refused?.message }).toEqual({
      status: 412,
      message: expect.stringMatching(new RegExp(`${initial}.*r1`)),
    });
  });
});

describe('content decider: a dependency of the content has a new version', () => {
  const later = '2026-01-02T00:00:00.000Z';
  const latest = '2026-01-03T00:00:00.000Z';
  const dependency = { kind: 'openapi' as const, spec: 'pets' };
  const record = (overrides: Partial<RecordDependencyUpdate> = {}): RecordDependencyUpdate => ({
    kind: 'RecordDependencyUpdate',
    spaceId,
    space: { organizationId: 'o1', deleted: false },
    dependency,
    versionId: 'v2',
    versionCreatedAt: later,
    now: latest,
    ...overrides,
  });
  const updated = (versionId: string, versionCreatedAt: string, revisionId = 'r1'): ContentEvent => ({
    type: 'ContentDependencyUpdated',
    data: { spaceId, organizationId: 'o1', revisionId, dependency, versionId, versionCreatedAt, updatedAt: latest },
  });

  it('given a revision older than the version, when the update is recorded, then it names the head the pages show it in', () => {
    spec
      .given([created('r1', [initial], 'tree-1')])
      .when(record())
      .then([updated('v2', later)]);
  });

  it('given the version recorded already, when it is recorded again, then nothing happens', () => {
    spec
      .given([created('r1', [initial], 'tree-1'), updated('v2', later)])
      .when(record())
      .thenNothing();
  });

  it('given a newer version recorded, when an older one is recorded (a replay), then nothing happens', () => {
    spec
      .given([created('r1', [initial], 'tree-1'), updated('v3', latest)])
      .when(record())
      .thenNothing();
  });

  it('given a revision written after the version, when the update is recorded, then nothing happens: that revision showed it already', () => {
    spec
      .given([created('r1', [initial], 'tree-1', latest)])
      .when(record())
      .thenNothing();
  });

  it('given a space without content or a deleted space, when the update is recorded, then nothing happens', () => {
    spec.given([]).when(record()).thenNothing();
    spec
      .given([created('r1', [initial], 'tree-1')])
      .when(record({ space: { organizationId: 'o1', deleted: true } }))
      .thenNothing();
  });

  it('given a recorded update, when a revision is committed, then the update does not stand in its way', () => {
    spec
      .given([created('r1', [initial], 'tree-1'), updated('v2', later)])
      .when(commit({ revisionId: 'r2', base: 'r1', tree: 'tree-2' }))
      .then([created('r2', ['r1'], 'tree-2')]);
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
