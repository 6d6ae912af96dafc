import { createHash } from 'node:crypto';
import type { Decider } from '#event-store/decider';
import { DomainError } from '#platform/errors';
import type { ContentDependency, ContentEvent, RevisionSource, RevisionType, TouchedPages } from './content.events';

export const contentStream = (spaceId: string) => `content-${spaceId}`;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Every space starts with an empty revision that no event records: its id is derived from the
 * space id, so the decider, the read models and the first write agree on it without a write at
 * space creation. The first real revision names it as its parent.
 */
export function initialRevisionId(spaceId: string): string {
  const digest = createHash('sha256').update(`initial-revision:${spaceId}`).digest();
  let id = '';
  for (let index = 0; index < 20; index += 1) id += BASE62[digest[index] % 62];
  return id;
}

/**
 * The head of a space's main line: its latest revision; the change requests merged into it (a
 * request merges once); and, per dependency (`openapi:<slug>`), the last version recorded as
 * updating the content.
 */
export interface ContentState {
  head: { revisionId: string; tree: string; createdAt: string } | null;
  merged: ReadonlySet<string>;
  dependencies: ReadonlyMap<string, { versionId: string; versionCreatedAt: string }>;
}

export const dependencyKey = (dependency: ContentDependency) => `${dependency.kind}:${dependency.spec}`;

/** Facts about the space and the caller, read by the command handler when the command is made. */
export interface ContentSpaceFacts {
  organizationId: string;
  editMode: 'live' | 'locked';
  deleted: boolean;
  /** The caller may edit the space's content (a role of `edit` or above); always true for the service itself. */
  mayEdit: boolean;
}

export type ContentCommand = CommitRevision | RecordDependencyUpdate;

/**
 * A new version of a spec the space's primary content uses (the reactor `content-dependencies`
 * found the space in the link index). Recorded only when the space is live, has content, and the
 * version is newer than both the head revision (content written after the version already shows
 * it, and said so) and the last version recorded for that spec: so a redelivered or replayed
 * version records nothing.
 */
export interface RecordDependencyUpdate {
  kind: 'RecordDependencyUpdate';
  spaceId: string;
  space: { organizationId: string; deleted: boolean };
  dependency: ContentDependency;
  versionId: string;
  versionCreatedAt: string;
  now: string;
}

export type CommitRevision = {
  kind: 'CommitRevision';
  spaceId: string;
  revisionId: string;
  /** The revision the new tree was made from: the head the command handler read. */
  base: string;
  /** `If-Match`: the revision the client last saw, which must still be the head. */
  ifMatch?: string;
  revisionType: RevisionType;
  tree: string;
  /** Parents besides `base` (the other side of a merge). */
  otherParents?: string[];
  /** Merge revisions: the change request merged. */
  mergedFrom?: string;
  pages: TouchedPages;
  source: RevisionSource;
  space: ContentSpaceFacts;
  by: string | null;
  now: string;
};

/** Raised when the head moved between reading it and committing: the command handler rebuilds on the new head. */
export class StaleBaseError extends DomainError {
  constructor(spaceId: string, base: string, head: string) {
    super(409, `the content of space ${spaceId} moved on from revision ${base} to ${head}`);
  }
}

/** Pure rule: why this space's content may not be written now, if it may not. */
export function refuseWrite(spaceId: string, space: ContentSpaceFacts): DomainError | null {
  if (space.deleted) return DomainError.conflict(`space ${spaceId} is deleted: restore it first`);
  if (!space.mayEdit) return DomainError.forbidden(`you may not edit the content of space ${spaceId}`);
  if (space.editMode === 'locked') return DomainError.conflict(`space ${spaceId} is locked: its content cannot be edited`);
  return null;
}

/**
 * Pure rule: a write pinned by `If-Match` to a revision that is no longer the head of the space's
 * main line is refused (412). Checked before any work on the write (an import's download) and
 * again when the revision is committed.
 */
export function refuseStaleHead(spaceId: string, ifMatch: string | undefined, head: string): DomainError | null {
  if (ifMatch === undefined || ifMatch === head) return null;
  return DomainError.preconditionFailed(
    `the content of space ${spaceId} has changed: If-Match names revision ${ifMatch} but it is at ${head}`,
  );
}

export const contentDecider: Decider<ContentCommand, ContentEvent, ContentState> = {
  initialState: () => ({ head: null, merged: new Set(), dependencies: new Map() }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'ContentRevisionCreated': {
        const head = { revisionId: event.data.revisionId, tree: event.data.tree, createdAt: event.data.createdAt };
        return {
          ...state,
          head,
          merged: event.data.mergedFrom === undefined ? state.merged : new Set([...state.merged, event.data.mergedFrom]),
        };
      }
      case 'ContentDependencyUpdated': {
        const dependencies = new Map(state.dependencies);
        dependencies.set(dependencyKey(event.data.dependency), {
          versionId: event.data.versionId,
          versionCreatedAt: event.data.versionCreatedAt,
        });
        return { ...state, dependencies };
      }
    }
  },
  decide: (command, state) =>
    command.kind === 'RecordDependencyUpdate' ? decideDependencyUpdate(command, state) : decideCommit(command, state),
};

function decideDependencyUpdate(command: RecordDependencyUpdate, state: ContentState): ContentEvent[] {
  const { head } = state;
  if (command.space.deleted || head === null) return [];
  const created = Date.parse(command.versionCreatedAt);
  if (!(created > Date.parse(head.createdAt))) return [];
  const last = state.dependencies.get(dependencyKey(command.dependency));
  if (last && (last.versionId === command.versionId || !(created > Date.parse(last.versionCreatedAt)))) return [];
  return [
    {
      type: 'ContentDependencyUpdated',
      data: {
        spaceId: command.spaceId,
        organizationId: command.space.organizationId,
        revisionId: head.revisionId,
        dependency: { kind: command.dependency.kind, spec: command.dependency.spec },
        versionId: command.versionId,
        versionCreatedAt: command.versionCreatedAt,
        updatedAt: command.now,
      },
    },
  ];
}

function decideCommit(command: CommitRevision, state: ContentState): ContentEvent[] | DomainError {
  const refused = refuseWrite(command.spaceId, command.space);
  if (refused) return refused;
  if (command.mergedFrom !== undefined && state.merged.has(command.mergedFrom))
    return DomainError.conflict(`change request ${command.mergedFrom} is already merged`);
  const head = state.head?.revisionId ?? initialRevisionId(command.spaceId);
  const stale = refuseStaleHead(command.spaceId, command.ifMatch, head);
  if (stale) return stale;
  if (command.base !== head) return new StaleBaseError(command.spaceId, command.base, head);
  // The same tree again is no new revision: an empty batch or a write that changes nothing.
  if (state.head !== null && state.head.tree === command.tree && command.revisionType === 'edits') return [];
  return [
    {
      type: 'ContentRevisionCreated',
      data: {
        spaceId: command.spaceId,
        organizationId: command.space.organizationId,
        revisionId: command.revisionId,
        parents: [command.base, ...(command.otherParents ?? [])],
        revisionType: command.revisionType,
        tree: command.tree,
        createdAt: command.now,
        createdBy: command.by,
        pages: command.pages,
        source: command.source,
        ...(command.mergedFrom !== undefined ? { mergedFrom: command.mergedFrom } : {}),
      },
    },
  ];
}
