import type { Caller } from '../../platform/src/http/auth';
import type { ChangeRequestSpace } from './changerequests-spaces.port';

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

/** One overlap a three-way merge cannot settle (the 409's `conflicts`). */
export interface ContentConflict {
  page: { id: string; title: string; path: string } | null;
  file?: { id: string; name: string };
  kind: string;
  ours: unknown;
  theirs: unknown;
}

/**
 * What change requests need of the content context (bound to content's ContentForChangeRequests):
 * main's head, the three-way merge of revision trees, committing a merge to main, the changes
 * between two trees, and a PDF of a revision.
 */
export interface ChangeRequestContent {
  /** The head of the space's main line, from its stream. */
  mainHead(spaceId: string): Promise<ContentPoint>;
  /** The head revision ids of spaces as the read models have them (for `outdated` on a page of requests). */
  heads(spaceIds: readonly string[]): Promise<ReadonlyMap<string, string>>;
  /** Merges `ours` and `theirs` from their common `ancestor` (tree hashes): the merged tree and the pages it changes relative to `onto`, or the conflicts. */
  merge(sides: { ancestor: string; ours: string; theirs: string }, onto: string): Promise<{ ok: true; tree: string; touched: TouchedPageIds } | { ok: false; conflicts: ContentConflict[] }>;
  /** The merge as one `merge` revision on main; `stale` when main moved on from `base`. */
  commitMerge(space: ChangeRequestSpace, merge: { base: string; tree: string; touched: TouchedPageIds; changeRequestHead: string; changeRequestId: string }, caller: Caller): Promise<{ revisionId: string } | 'stale'>;
  /** The semantic changes from one tree to another (docs/content.md, Semantic changes). */
  changes(spaceId: string, from: string, to: string): Promise<unknown[]>;
  /** A PDF of a revision of the space (404 for a revision of another space): every page, or one page (`only`: without its subpages). */
  pdf(spaceId: string, revisionId: string, options: { page?: string; only?: boolean; title: string }): Promise<Buffer>;
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
