import type { Block, DocumentNode, Inline, Text } from './document.model';
import { defaultNewKey, fingerprint } from './document.nodes';
import { BLOCK_CONTENT } from './document.schema';
import { diff } from './packages';

/**
 * Keys across a body replacement (docs/content.md, "Block keys"): comments target blocks by key
 * and merges match blocks by key, so a page body written again (from markdown, whose blocks get
 * new keys) keeps the keys of what did not change. The top-level blocks are diffed by content
 * (keys ignored): an unchanged block takes its previous keys, its nested blocks' included; a block
 * edited in place (one block removed and one added at the same spot) keeps its key, and the blocks
 * inside it are matched the same way.
 */

export interface CarryKeysOptions {
  /** For a block whose own key another block now carries (default: short random base-62 strings). */
  newKey?: () => string;
}

/** Past this many differences the diff stops; the blocks are then matched by content in order only. */
const MAX_EDIT_LENGTH = 2000;

export function carryKeys(previous: DocumentNode, next: DocumentNode, options: CarryKeysOptions = {}): DocumentNode {
  const nodes = carryBlockKeys(previous.nodes, next.nodes);
  const document: DocumentNode = { ...next, nodes };
  dedupeKeys(document, options.newKey ?? defaultNewKey);
  return document;
}

function carryBlockKeys(previous: readonly Block[], next: readonly Block[]): Block[] {
  const before = previous.map(fingerprint);
  const after = next.map(fingerprint);
  const result = next.map((block) => block);
  const changes = diff().diffArrays(before, after, { maxEditLength: MAX_EDIT_LENGTH });
  if (!changes) {
    matchInOrder(before, after).forEach((from, to) => (result[to] = withKeysOf(previous[from], next[to])));
    return result;
  }
  let from = 0;
  let to = 0;
  for (let index = 0; index < changes.length; index++) {
    const change = changes[index];
    const count = change.count ?? change.value.length;
    if (!change.added && !change.removed) {
      for (let offset = 0; offset < count; offset++) result[to + offset] = withKeysOf(previous[from + offset], next[to + offset]);
      from += count;
      to += count;
      continue;
    }
    const following = changes[index + 1];
    if (change.removed && following?.added) {
      const addedCount = following.count ?? following.value.length;
      // Edited in place: one block replaced by one block at the same spot.
      if (count === 1 && addedCount === 1) result[to] = editedInPlace(previous[from], next[to]);
      from += count;
      to += addedCount;
      index++;
      continue;
    }
    if (change.removed) from += count;
    else to += count;
  }
  return result;
}

/** `next` with `previous`'s keys, the two having the same content. */
function withKeysOf<T extends Block | Inline | Text>(previous: T, next: T): T {
  const copy = { ...next };
  if (previous.key !== undefined) copy.key = previous.key;
  if ('nodes' in copy && copy.nodes && 'nodes' in previous && previous.nodes) {
    const before = previous.nodes as Array<Block | Inline | Text>;
    (copy as Block).nodes = (copy.nodes as Array<Block | Inline | Text>).map((child, index) =>
      before[index] ? withKeysOf(before[index], child) : child,
    );
  }
  return copy;
}

/** A block edited in place keeps its key; if it holds blocks, those are matched again inside it. */
function editedInPlace(previous: Block, next: Block): Block {
  const copy: Block = { ...next };
  if (previous.key !== undefined) copy.key = previous.key;
  if (previous.type === next.type && BLOCK_CONTENT[next.type].kind !== 'inline' && previous.nodes && next.nodes) {
    const blocksBefore = previous.nodes.filter((child): child is Block => child.object === 'block');
    const blocksAfter = next.nodes.filter((child): child is Block => child.object === 'block');
    if (blocksAfter.length === next.nodes.length) copy.nodes = carryBlockKeys(blocksBefore, blocksAfter);
  }
  return copy;
}

/** Indexes of `before` matched to indexes of `after` with equal content, both increasing: a greedy, linear fallback. */
function matchInOrder(before: readonly string[], after: readonly string[]): Map<number, number> {
  const positions = new Map<string, number[]>();
  before.forEach((value, index) => {
    const list = positions.get(value);
    if (list) list.push(index);
    else positions.set(value, [index]);
  });
  const matches = new Map<number, number>();
  let last = -1;
  after.forEach((value, index) => {
    const list = positions.get(value);
    while (list && list.length > 0 && list[0] <= last) list.shift();
    if (list && list.length > 0) {
      last = list.shift()!;
      matches.set(last, index);
    }
  });
  return matches;
}

/** A key carried over may already be on another block of the new body: that block gets a new key. */
function dedupeKeys(document: DocumentNode, newKey: () => string): void {
  const used = new Set<string>();
  const stack: Block[] = [...document.nodes].reverse();
  const all: Block[] = [];
  while (stack.length > 0) {
    const block = stack.pop()!;
    all.push(block);
    const children = block.nodes ?? [];
    for (let index = children.length - 1; index >= 0; index--) {
      const child = children[index];
      if (child.object === 'block') stack.push(child);
    }
  }
  const counts = new Map<string, number>();
  for (const block of all) if (block.key !== undefined) counts.set(block.key, (counts.get(block.key) ?? 0) + 1);
  for (const block of all) {
    if (block.key === undefined) continue;
    if (used.has(block.key)) {
      let key = newKey();
      while (counts.has(key) || used.has(key)) key = newKey();
      block.key = key;
    }
    used.add(block.key);
  }
}
