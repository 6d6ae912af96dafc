import { untrustedTask } from '#platform/untrusted-work/untrusted-work';
import { mergeDocuments, type DocumentMergeResult } from './document-merge';
import type { DocumentNode } from './document.model';

/**
 * Page bodies changed on both sides of a merge, merged block by block and word by word on a thread
 * of the untrusted-work pool: the cost follows the size of what callers wrote (a paragraph of
 * 120,000 words takes seconds), so it never runs on the thread that answers requests.
 */
export interface BodiesToMerge {
  triples: { ancestor: DocumentNode; ours: DocumentNode; theirs: DocumentNode }[];
}

export function mergeBodiesTask(input: BodiesToMerge): DocumentMergeResult[] {
  return input.triples.map(({ ancestor, ours, theirs }) => mergeDocuments(ancestor, ours, theirs));
}

export const MERGE_BODIES = untrustedTask<BodiesToMerge, DocumentMergeResult[]>(__filename, 'mergeBodiesTask', 'merging page bodies');
