/**
 * Space content. One stream per space, `content-<spaceId>`: the space's main line of revisions.
 * A revision's pages, bodies and files live in the blob store as a Merkle tree (docs/content.md,
 * "Storage"); the event carries the tree's root hash and ids only, so it stays small whatever the
 * size of the space.
 */
export const REVISION_TYPES = ['edits', 'merge', 'update', 'rollback'] as const;
export type RevisionType = (typeof REVISION_TYPES)[number];

/** Pages a revision touched, for the audit log: at most `TOUCHED_PAGES_LIMIT` ids per list, with the full counts. */
export interface TouchedPages {
  created: string[];
  updated: string[];
  deleted: string[];
  counts: { created: number; updated: number; deleted: number };
}

export const TOUCHED_PAGES_LIMIT = 100;

/** How a revision came to be, for the audit log and the history. */
export type RevisionSource =
  | { kind: 'batch' }
  | { kind: 'import'; source: 'website' | 'markdown' | 'zip'; url: string }
  | { kind: 'rollback'; to: string; page?: string }
  | { kind: 'duplicate'; from: string; fromRevision: string }
  /** A change request merged into main (a `merge` revision) or main pulled into a change request (an `update`). */
  | { kind: 'merge'; changeRequest: string }
  | { kind: 'update'; changeRequest: string; main: string };

export interface RevisionData {
  spaceId: string;
  organizationId: string;
  revisionId: string;
  parents: string[];
  revisionType: RevisionType;
  /** Root hash of the revision's tree in the blob store. */
  tree: string;
  createdAt: string;
  /** The user who made it; null for the service itself (a duplicate's copy). */
  createdBy: string | null;
  pages: TouchedPages;
  source: RevisionSource;
  /** Merge revisions: the change request merged. */
  mergedFrom?: string;
}

/** What a space's content can depend on besides itself: an OpenAPI spec of its organization, by slug. */
export interface ContentDependency {
  kind: 'openapi';
  spec: string;
}

/**
 * A spec the space's primary content uses (an operation block or a computed page) has a new
 * version, which the pages show from now on without a new revision. Recorded once per space and
 * version, by the reactor `content-dependencies`.
 */
export interface DependencyUpdatedData {
  spaceId: string;
  organizationId: string;
  /** The head revision, whose pages now show the new version. */
  revisionId: string;
  dependency: ContentDependency;
  versionId: string;
  /** When the version was made: a version not newer than the last one recorded, or than the head, is not recorded. */
  versionCreatedAt: string;
  updatedAt: string;
}

export type ContentEvent =
  { type: 'ContentRevisionCreated'; data: RevisionData } | { type: 'ContentDependencyUpdated'; data: DependencyUpdatedData };

/** Bounds the touched lists of an event (the counts stay exact). */
export function touchedPages(touched: {
  created: readonly string[];
  updated: readonly string[];
  deleted: readonly string[];
}): TouchedPages {
  return {
    created: touched.created.slice(0, TOUCHED_PAGES_LIMIT),
    updated: touched.updated.slice(0, TOUCHED_PAGES_LIMIT),
    deleted: touched.deleted.slice(0, TOUCHED_PAGES_LIMIT),
    counts: { created: touched.created.length, updated: touched.updated.length, deleted: touched.deleted.length },
  };
}
