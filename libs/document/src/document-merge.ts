import { diff3Merge, LCS } from 'node-diff3';
import type { Block, DocumentNode, Inline, Text } from './document.model';
import { canonicalJson, fingerprint, normalizeLeaves, textOf } from './document.nodes';
import { blockText } from './document-text';

/**
 * Three-way merge of two edits of a page body (docs/content.md, "Documents": block keys are
 * stable across edits, and merges match blocks by them). Pure and synchronous; the inputs are never changed, the result may share the blocks it
 * took unchanged with them.
 *
 * - Top-level blocks are matched by `key` (a block without one, or with a key an earlier block of
 *   the same document already has, is matched by content).
 * - A block added, deleted or changed on one side takes that side; changed the same way on both,
 *   it is taken once. Changed differently on both: when its structure (types, data, marks, inlines,
 *   keys) is the same on the three sides and only texts differ, each text is merged word by word
 *   with diff3; otherwise, or when the word edits overlap, it is a conflict. Deleted on one side and
 *   changed on the other is a conflict too.
 * - The order of the top-level blocks is a three-way merge of the key sequences
 *   (`mergeKeySequences`).
 * - Ours and theirs are interchangeable: swapping them gives the same document (conflicts swap
 *   their `ours` and `theirs`).
 */

export interface DocumentConflict {
  /** Key of the top-level block; null for a block without a key or for the document's `data`. */
  block: string | null;
  /** Plain text of the block on each side ('' when deleted), at most `CONFLICT_TEXT_LENGTH` characters. */
  ours: string;
  theirs: string;
}

export type DocumentMergeResult = { ok: true; document: DocumentNode } | { ok: false; conflicts: DocumentConflict[] };

export const CONFLICT_TEXT_LENGTH = 200;

export function mergeDocuments(ancestor: DocumentNode, ours: DocumentNode, theirs: DocumentNode): DocumentMergeResult {
  const sameJson = jsonComparer();
  // Whole-document shortcuts: the result is then exactly one side.
  if (sameJson(ours, ancestor) || sameJson(ours, theirs)) return { ok: true, document: { ...theirs, nodes: [...theirs.nodes] } };
  if (sameJson(theirs, ancestor)) return { ok: true, document: { ...ours, nodes: [...ours.nodes] } };

  const base = identify(ancestor.nodes);
  const mine = identify(ours.nodes);
  const other = identify(theirs.nodes);
  const conflicts: DocumentConflict[] = [];

  const data = mergeRecords(ancestor.data, ours.data, theirs.data, sameJson);
  for (const name of data.conflicts) {
    conflicts.push({ block: null, ours: clip(jsonText(ours.data[name])), theirs: clip(jsonText(theirs.data[name])) });
  }

  const merged = new Map<string, Block>();
  for (const id of new Set([...base.ids, ...mine.ids, ...other.ids])) {
    const outcome = mergeBlock(base.blocks.get(id), mine.blocks.get(id), other.blocks.get(id), sameJson);
    if (outcome === CONFLICT) conflicts.push(blockConflict(id, mine.blocks.get(id), other.blocks.get(id)));
    else if (outcome) merged.set(id, outcome);
  }

  const present = (id: string) => merged.has(id);
  const order = mergeKeySequences(base.ids.filter(present), mine.ids.filter(present), other.ids.filter(present));
  for (const id of order.conflicts) conflicts.push(blockConflict(id, mine.blocks.get(id), other.blocks.get(id)));

  if (conflicts.length > 0) return { ok: false, conflicts };
  return {
    ok: true,
    document: { object: 'document', data: data.merged as DocumentNode['data'], nodes: order.order.map((id) => merged.get(id)!) },
  };
}

// --- Sequences ------------------------------------------------------------------------------

export interface SequenceMerge {
  /** The merged sequence: every key of `ours` and `theirs`, each once. */
  order: string[];
  /** Keys both sides moved (or both added) to different places; they are in `order` once, at one of them. */
  conflicts: string[];
}

/**
 * Three-way merge of sequences of unique keys (top-level blocks, a page's subpages), after the
 * caller has decided which keys stay: pass the three sequences restricted to those. Symmetric:
 * swapping `ours` and `theirs` gives the same order.
 *
 * The keys of the ancestor that both sides kept in their relative order (each side's longest common
 * subsequence with the ancestor, from node-diff3) form a skeleton both sides agree on. Every other
 * key is placed by the side that added or moved it, in the gap of the skeleton where that side has
 * it; when both sides put keys in the same gap, the two runs go in the order of their first keys,
 * so neither side comes first by being "ours". node-diff3's `diff3Merge` is not used here: it
 * reports two insertions at one spot, or edits next to each other, as conflicts, and a key moved on
 * both sides would come out twice.
 */
export function mergeKeySequences(ancestor: readonly string[], ours: readonly string[], theirs: readonly string[]): SequenceMerge {
  const inOurs = new Set(ours);
  const inTheirs = new Set(theirs);
  const base = ancestor.filter((key) => inOurs.has(key) && inTheirs.has(key));
  const inBase = new Set(base);
  const keptByOurs = keptInOrder(base, ours);
  const keptByTheirs = keptInOrder(base, theirs);
  const skeleton = base.filter((key) => keptByOurs.has(key) && keptByTheirs.has(key));
  const anchors = new Map(skeleton.map((key, index) => [key, index]));

  // A side places the keys it added and the ones it moved; the others' places are the skeleton's or the other side's.
  const oursGaps = gaps(ours, anchors, (key) => !inBase.has(key) || !keptByOurs.has(key));
  const theirsGaps = gaps(theirs, anchors, (key) => !inBase.has(key) || !keptByTheirs.has(key));

  const conflicts: string[] = [];
  for (const [key, gap] of oursGaps.gapOf) {
    const theirGap = theirsGaps.gapOf.get(key);
    if (theirGap !== undefined && theirGap !== gap) conflicts.push(key);
  }

  const order: string[] = [];
  const placed = new Set<string>();
  const append = (keys: readonly string[]) => {
    for (const key of keys) {
      if (placed.has(key)) continue;
      placed.add(key);
      order.push(key);
    }
  };
  for (let gap = -1; gap < skeleton.length; gap++) {
    if (gap >= 0) append([skeleton[gap]]);
    append(mergeRuns(oursGaps.runs.get(gap), theirsGaps.runs.get(gap)));
  }
  return { order, conflicts };
}

/** The keys a side places, grouped by the skeleton key they follow (-1: before the first). */
function gaps(
  sequence: readonly string[],
  anchors: ReadonlyMap<string, number>,
  places: (key: string) => boolean,
): { runs: Map<number, string[]>; gapOf: Map<string, number> } {
  const runs = new Map<number, string[]>();
  const gapOf = new Map<string, number>();
  let gap = -1;
  for (const key of sequence) {
    const anchor = anchors.get(key);
    if (anchor !== undefined) {
      gap = anchor;
      continue;
    }
    if (!places(key)) continue;
    gapOf.set(key, gap);
    const run = runs.get(gap);
    if (run) run.push(key);
    else runs.set(gap, [key]);
  }
  return { runs, gapOf };
}

/** Two sides' runs in one gap: each kept whole, the run with the smaller first key first (not "ours first"). */
function mergeRuns(a: readonly string[] | undefined, b: readonly string[] | undefined): readonly string[] {
  if (!a || a.length === 0) return b ?? [];
  if (!b || b.length === 0) return a;
  const order = compareStrings(a[0], b[0]) || compareStrings(a.join('\u0000'), b.join('\u0000'));
  return order <= 0 ? [...a, ...b] : [...b, ...a];
}

/**
 * The keys of `base` that `side` keeps in the same relative order: a longest common subsequence.
 * The common prefix and suffix are taken first, so a local edit of a long list stays cheap.
 */
function keptInOrder(base: readonly string[], side: readonly string[]): Set<string> {
  const inBase = new Set(base);
  const rest = side.filter((key) => inBase.has(key));
  let start = 0;
  while (start < base.length && start < rest.length && base[start] === rest[start]) start++;
  let baseEnd = base.length;
  let restEnd = rest.length;
  while (baseEnd > start && restEnd > start && base[baseEnd - 1] === rest[restEnd - 1]) {
    baseEnd--;
    restEnd--;
  }
  const kept = new Set([...base.slice(0, start), ...base.slice(baseEnd)]);
  const middle = base.slice(start, baseEnd);
  if (middle.length > 0 && restEnd > start) {
    for (let link = LCS(middle, rest.slice(start, restEnd)); link.chain !== null; link = link.chain) kept.add(middle[link.buffer1index]);
  }
  return kept;
}

// --- Blocks ---------------------------------------------------------------------------------

const CONFLICT = Symbol('conflict');

interface Identified {
  /** Identities in document order: `k:<key>`, or `c:<n>:<content>` for the n-th keyless block with that content. */
  ids: string[];
  blocks: Map<string, Block>;
}

/** Identities of top-level blocks: the key, else (no key, or a key already used) the content. */
function identify(blocks: readonly Block[]): Identified {
  const ids: string[] = [];
  const map = new Map<string, Block>();
  const seen = new Map<string, number>();
  for (const block of blocks) {
    let id = block.key !== undefined ? `k:${block.key}` : undefined;
    if (id === undefined || map.has(id)) {
      const content = fingerprint(block);
      const n = (seen.get(content) ?? 0) + 1;
      seen.set(content, n);
      id = `c:${n}:${content}`;
    }
    ids.push(id);
    map.set(id, block);
  }
  return { ids, blocks: map };
}

/** The block's key as a conflict names it: null when it was matched by content. */
function keyOf(id: string): string | null {
  return id.startsWith('k:') ? id.slice(2) : null;
}

/** One block, three-way: the merged block, undefined when it is gone, or a conflict. */
function mergeBlock(
  ancestor: Block | undefined,
  ours: Block | undefined,
  theirs: Block | undefined,
  sameJson: JsonEqual,
): Block | undefined | typeof CONFLICT {
  if (!ours || !theirs) {
    const kept = ours ?? theirs;
    if (!ancestor) return kept; // added on one side
    if (!kept) return undefined; // deleted on both
    return sameJson(kept, ancestor) ? undefined : CONFLICT; // deleted on one side; changed on the other?
  }
  if (sameJson(ours, theirs)) return ours;
  if (!ancestor) return CONFLICT; // the same key added on both sides, differently
  if (sameJson(ours, ancestor)) return theirs;
  if (sameJson(theirs, ancestor)) return ours;
  return mergeBlockTexts(ancestor, ours, theirs) ?? CONFLICT;
}

/**
 * A block changed on both sides whose structure is the same on all three but for its texts: each
 * text merged word by word (diff3 on words and the whitespace between them). Null when the
 * structures differ or two edits of one text overlap.
 */
function mergeBlockTexts(ancestor: Block, ours: Block, theirs: Block): Block | null {
  const base = splitTexts(ancestor);
  const mine = splitTexts(ours);
  const other = splitTexts(theirs);
  if (base.shape !== mine.shape || base.shape !== other.shape) return null;
  const texts: string[] = [];
  for (let index = 0; index < base.texts.length; index++) {
    const text = mergeText(base.texts[index], mine.texts[index], other.texts[index]);
    if (text === null) return null;
    texts.push(text);
  }
  let next = 0;
  return withTexts(ours, () => texts[next++], true);
}

function mergeText(ancestor: string, ours: string, theirs: string): string | null {
  if (ours === ancestor || ours === theirs) return theirs;
  if (theirs === ancestor) return ours;
  const regions = diff3Merge(words(ours), words(ancestor), words(theirs));
  let text = '';
  for (const region of regions) {
    if (!region.ok) return null;
    text += region.ok.join('');
  }
  return text;
}

/** Words and the whitespace between them: joined again they give the text back. */
function words(text: string): string[] {
  return text.match(/\s+|\S+/g) ?? [];
}

/** The block's leaf texts in document order, and its JSON with those texts blanked: its structure. */
function splitTexts(block: Block): { shape: string; texts: string[] } {
  const texts: string[] = [];
  const blank = withTexts(
    block,
    (text) => {
      texts.push(text);
      return '';
    },
    false,
  );
  return { shape: canonicalJson(blank), texts };
}

/**
 * A copy of a block with every leaf text replaced, in document order; with `normalize`, each text
 * in normal form again (a leaf emptied by the merge dropped, neighbours with the same marks joined).
 */
function withTexts<T extends Block | Inline | Text>(node: T, replace: (text: string) => string, normalize: boolean): T {
  if (node.object === 'text') {
    const leaves = node.leaves.map((leaf) => ({ ...leaf, text: replace(leaf.text) }));
    const text: Text = normalize ? textOf(normalizeLeaves(leaves)) : { object: 'text', leaves };
    if (node.key !== undefined) text.key = node.key;
    return text as T;
  }
  if (!node.nodes) return node;
  return { ...node, nodes: node.nodes.map((child: Block | Inline | Text) => withTexts(child, replace, normalize)) } as T;
}

function blockConflict(id: string, ours: Block | undefined, theirs: Block | undefined): DocumentConflict {
  return { block: keyOf(id), ours: ours ? clip(blockText(ours)) : '', theirs: theirs ? clip(blockText(theirs)) : '' };
}

// --- Helpers --------------------------------------------------------------------------------

/** A record merged key by key, three-way; the names changed differently on both sides are conflicts. */
function mergeRecords(
  ancestor: Record<string, unknown>,
  ours: Record<string, unknown>,
  theirs: Record<string, unknown>,
  sameJson: JsonEqual,
): { merged: Record<string, unknown>; conflicts: string[] } {
  const merged: Record<string, unknown> = {};
  const conflicts: string[] = [];
  for (const name of new Set([...Object.keys(ancestor), ...Object.keys(ours), ...Object.keys(theirs)])) {
    const [base, mine, other] = [ancestor[name], ours[name], theirs[name]];
    let value: unknown;
    if (sameJson(mine, base) || sameJson(mine, other)) value = other;
    else if (sameJson(other, base)) value = mine;
    else conflicts.push(name);
    if (value !== undefined) merged[name] = value;
  }
  return { merged, conflicts };
}

type JsonEqual = (a: unknown, b: unknown) => boolean;

/** Equality as canonical JSON, each object serialized once per merge (blocks are compared several times). */
function jsonComparer(): JsonEqual {
  const cache = new WeakMap<object, string>();
  const json = (value: unknown): string => {
    if (value === null || typeof value !== 'object') return canonicalJson(value);
    let text = cache.get(value);
    if (text === undefined) {
      text = canonicalJson(value);
      cache.set(value, text);
    }
    return text;
  };
  return (a, b) => a === b || (a !== undefined && b !== undefined && json(a) === json(b));
}

function jsonText(value: unknown): string {
  return value === undefined ? '' : typeof value === 'string' ? value : canonicalJson(value);
}

/** At most `CONFLICT_TEXT_LENGTH` characters (code points, not UTF-16 units). */
function clip(text: string): string {
  const characters = Array.from(text);
  return characters.length <= CONFLICT_TEXT_LENGTH ? text : characters.slice(0, CONFLICT_TEXT_LENGTH).join('');
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
