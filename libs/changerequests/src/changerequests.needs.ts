import { createHmac } from 'node:crypto';
import type { MarkdownRefs } from '#document/markdown-refs';
import type { Caller } from '#platform/http/auth';

/*
 * What the change-requests context needs of others: every port it consumes, the types they speak
 * in, and their tokens. Each is bound at the composition root (libs/composition/src/contexts.ts)
 * to an adapter another context provides, or to a value derived from the service's secrets.
 */

/** A space as change requests read it, with what the caller may do there (the spaces context's role rules). */
export interface ChangeRequestSpace {
  id: string;
  organizationId: string;
  title: string;
  editMode: 'live' | 'locked';
  visibility: string;
  deleted: boolean;
  createdAt: string;
  permissions: { view: boolean; edit: boolean; comment: boolean; admin: boolean; review: boolean; merge: boolean };
}

/** What change requests need of the spaces context (bound at the composition root to spaces' adapter). */
export interface ChangeRequestSpaces {
  /** The space, or 404 when the caller may not see it (exactly as `GET /spaces/{spaceId}` answers). */
  spaceFor(spaceId: string, caller: Caller): Promise<ChangeRequestSpace>;
  /** Live spaces of the organization the caller may read; 404 for people outside the organization. */
  readableSpaces(organizationId: string, caller: Caller): Promise<Array<{ id: string; title: string }>>;
  /** Whether the caller may read every space of the organization (members with an organization role); 404 for people outside it. */
  readsEverySpace(organizationId: string, caller: Caller): Promise<boolean>;
}

export const CHANGE_REQUEST_SPACES = Symbol('CHANGE_REQUEST_SPACES');

/** What change requests need of organizations: the organization's merge rule (`changeRequestsRequireApproval`), and who belongs to it. */
export interface ChangeRequestOrganizations {
  requiresApproval(organizationId: string): Promise<boolean>;
  /** Those of these users who are members of the organization (guests included): the only people a request may name. */
  membersAmong(organizationId: string, userIds: readonly string[]): Promise<ReadonlySet<string>>;
}

export const CHANGE_REQUEST_ORGANIZATIONS = Symbol('CHANGE_REQUEST_ORGANIZATIONS');

/** What change requests need of comments: open comments per request (the Change request object's `comments`). */
export interface ChangeRequestComments {
  openComments(changeRequestIds: readonly string[]): Promise<ReadonlyMap<string, number>>;
}

export const CHANGE_REQUEST_COMMENTS = Symbol('CHANGE_REQUEST_COMMENTS');

/** What change requests need of identity: the users a request names, as identity presents them. */
export interface ChangeRequestUsers {
  byIds(userIds: readonly string[]): Promise<ReadonlyMap<string, { _id: string }>>;
  present(user: { _id: string }): { object: 'user'; id: string };
}

export const CHANGE_REQUEST_USERS = Symbol('CHANGE_REQUEST_USERS');

/** A revision as a line names it: its id and its tree's root hash. */
export interface ContentPoint {
  revisionId: string;
  tree: string;
}

/** Pages a revision touched, as content's events record them (bounded lists, exact counts). */
export interface TouchedPageIds {
  created: string[];
  updated: string[];
  deleted: string[];
  counts: { created: number; updated: number; deleted: number };
}

/** Where a revision came from, as content's events record it (a line's revisions are `batch`, `import` or `update`). */
export type ContentRevisionSource =
  | { kind: 'batch' }
  | { kind: 'import'; source: 'website' | 'markdown' | 'zip'; url: string }
  | { kind: 'rollback'; to: string; page?: string }
  | { kind: 'duplicate'; from: string; fromRevision: string }
  | { kind: 'merge'; changeRequest: string }
  | { kind: 'update'; changeRequest: string; main: string };

/**
 * Content's event of a new revision, as far as change requests read it (the reactor that records a
 * merge the request's stream missed): declared here so this context imports nothing of content.
 */
export interface ContentRevisionCreated {
  type: 'ContentRevisionCreated';
  data: { organizationId: string; revisionId: string; parents: string[]; revisionType: string; mergedFrom?: string };
}

/** One overlap a three-way merge cannot settle (the 409's `conflicts`). */
export interface ContentConflict {
  page: { id: string; title: string; path: string } | null;
  file?: { id: string; name: string };
  kind: string;
  ours: unknown;
  theirs: unknown;
}

/** The flags of a content read, as the content routes take them (docs/content.md, Reads); content reads them as it reads the space's. */
export interface ContentReadFlags {
  /** Accepted as on the space's routes; a request's content is always read in its head revision. */
  revision?: string;
  shareKey?: string;
  metadata?: 'true' | 'false';
  cachedMetadata?: 'true' | 'false';
  computed?: 'true' | 'false';
  evaluated?: 'true' | 'false' | 'deterministic-only';
  dereferenced?: 'true' | 'false' | 'reusable-contents';
  format?: 'markdown' | 'document';
  'format.markdown.refs'?: MarkdownRefs;
}

/** The cursor and size of a page of a list, as the routes take them. */
export interface ContentPaging {
  page?: string;
  limit?: number;
}

/** One object of a request's content and the revision it was read in: its ETag. */
export interface VersionedContent {
  object: unknown;
  revisionId: string;
}

export type ContentLinkStatus = 'ok' | 'broken' | 'in-app';

/**
 * A write to a request's content made ready by content once, before any attempt at committing it
 * (its changes checked, the caller's right to edit checked, markdown converted, files stored, an
 * import fetched): content's own, handed back to it as it came.
 */
export interface PreparedContentWrite {
  readonly kind: 'batch' | 'import';
}

/** An import made ready, with how much of its source it takes (the answer's counts). */
export interface PreparedContentImport extends PreparedContentWrite {
  readonly importedResources: number;
  readonly totalResources: number;
}

/** The space of a request whose content the caller may edit, as content checked it: handed back to content as it came. */
export interface EditableContentSpace {
  readonly id: string;
}

/** A write built on a revision of a request's line, nothing committed yet: its tree and the pages it touched. */
export interface BuiltContentWrite {
  tree: string;
  pages: TouchedPageIds;
}

/**
 * What change requests need of the content context (bound to content's ContentForChangeRequests):
 * main's head, the three-way merge of revision trees, committing a merge to main, the changes
 * between two trees, a PDF of a revision; and for the request's content routes, the reads of a
 * revision (the request's head) and the writes built on the request's line.
 */
export interface ChangeRequestContent {
  /** The head of the space's main line, from its stream. */
  mainHead(spaceId: string): Promise<ContentPoint>;
  /** The head revision ids of spaces as the read models have them (for `outdated` on a page of requests). */
  heads(spaceIds: readonly string[]): Promise<ReadonlyMap<string, string>>;
  /** Merges `ours` and `theirs` from their common `ancestor` (tree hashes): the merged tree and the pages it changes relative to `onto`, or the conflicts. */
  merge(
    sides: { ancestor: string; ours: string; theirs: string },
    onto: string,
  ): Promise<{ ok: true; tree: string; touched: TouchedPageIds } | { ok: false; conflicts: ContentConflict[] }>;
  /** The merge as one `merge` revision on main; `stale` when main moved on from `base`. */
  commitMerge(
    space: ChangeRequestSpace,
    merge: { base: string; tree: string; touched: TouchedPageIds; changeRequestHead: string; changeRequestId: string },
    caller: Caller,
  ): Promise<{ revisionId: string } | 'stale'>;
  /** The semantic changes from one tree to another (docs/content.md, Semantic changes). */
  changes(spaceId: string, from: string, to: string): Promise<unknown[]>;
  /** A PDF of a revision of the space (404 for a revision of another space): every page, or one page (`only`: without its subpages). */
  pdf(spaceId: string, revisionId: string, options: { page?: string; only?: boolean; title: string }): Promise<Buffer>;

  // The reads of a request's content, in `revisionId` (its head), exactly as the space's content routes answer them.
  /** The Revision object with its pages and files. */
  revision(spaceId: string, revisionId: string, caller: Caller, flags: ContentReadFlags): Promise<{ id: string }>;
  /** The page tree with the bodies. */
  pages(spaceId: string, revisionId: string, caller: Caller, flags: ContentReadFlags): Promise<unknown>;
  /** A page of the list of files. */
  files(spaceId: string, revisionId: string, caller: Caller, flags: ContentReadFlags, paging: ContentPaging): Promise<unknown>;
  file(spaceId: string, revisionId: string, fileId: string, caller: Caller, flags: ContentReadFlags): Promise<unknown>;
  page(spaceId: string, revisionId: string, pageId: string, caller: Caller, flags: ContentReadFlags): Promise<VersionedContent>;
  /** The page at a path of slugs (`a/b/c`). */
  pageByPath(spaceId: string, revisionId: string, path: string, caller: Caller, flags: ContentReadFlags): Promise<VersionedContent>;
  /** A page's outgoing links: main's, judged and named in the revision. */
  pageLinks(
    spaceId: string,
    revisionId: string,
    pageId: string,
    caller: Caller,
    status: ContentLinkStatus | undefined,
    paging: ContentPaging,
  ): Promise<unknown>;
  /** Pages of main that link to a page or a file of the revision. */
  backlinks(
    spaceId: string,
    revisionId: string,
    target: { page: string } | { file: string },
    caller: Caller,
    paging: ContentPaging,
  ): Promise<unknown>;

  // The writes of a request's content: made ready once, built on the line's head in each attempt (this context commits).
  /** A batch (the request's `changes`): checked (400) before the caller's right to edit the space's requests (404, 409 deleted, 403), then made ready. */
  prepareBatch(spaceId: string, changes: unknown, caller: Caller): Promise<PreparedContentWrite>;
  /** The space, if the caller may edit its requests' content (404, 409 deleted, 403; a locked space still takes edits through requests). */
  editableSpace(spaceId: string, caller: Caller): Promise<EditableContentSpace>;
  /** An import made ready (fetched, converted, its files stored), into the page `pageId` when given. */
  prepareImport(
    space: EditableContentSpace,
    request: { source: 'website' | 'markdown' | 'zip'; url: string },
    pageId: string | undefined,
  ): Promise<PreparedContentImport>;
  /** The write built on the line's `head` (blobs written, nothing committed); a `revert_page` without `revision` goes back to `baseRevisionId`. */
  buildOn(write: PreparedContentWrite, head: ContentPoint, baseRevisionId: string): Promise<BuiltContentWrite>;
  /** What a batch answers once committed as `revisionId`: what each change did, and the files it inserted as that revision shows them. */
  presentBatch(
    write: PreparedContentWrite,
    revisionId: string,
    built: BuiltContentWrite,
  ): Promise<{ changes: unknown[]; insertedFiles: unknown[] }>;
}

export const CHANGE_REQUEST_CONTENT = Symbol('CHANGE_REQUEST_CONTENT');

/** A JSON document as content's converter gives it back (docs/content.md, Documents). */
export type ChangeRequestDocument = { object: 'document'; [member: string]: unknown };

/**
 * What change requests need of content's document converter (bound to content's
 * ContentForComments, which converts comment bodies the same way): a JSON document validated
 * against content's document rules (400 naming what is wrong) and rendered to markdown, in the
 * untrusted-work pool.
 */
export interface ChangeRequestDocuments {
  document(body: { document: unknown }): Promise<{ document: ChangeRequestDocument; markdown: string }>;
}

export const CHANGE_REQUEST_DOCUMENTS = Symbol('CHANGE_REQUEST_DOCUMENTS');

/** The signing key of PDF URLs: a port bound at the composition root, derived from the service's secret. */
export const CHANGE_REQUEST_URL_KEY = Symbol('CHANGE_REQUEST_URL_KEY');

/** How the composition root derives CHANGE_REQUEST_URL_KEY from the admin token. */
export function changeRequestUrlKey(adminToken: string): Buffer {
  return createHmac('sha256', adminToken).update('change-request-pdf-urls').digest();
}
