import { newId } from '#platform/ids';
import { MARK_TYPES, type Block, type DocumentNode, type Inline, type Leaf, type Mark, type MarkType, type Text } from './document.model';

/**
 * Builders and the normal form of inline content (docs/content.md, "Normal form"): within a text,
 * adjacent leaves with the same marks are one leaf and no leaf is empty unless it is the only one;
 * a leaf's marks are unique by type and in `MARK_TYPES` order; inline content is texts and inlines
 * alternating, starting and ending with a (possibly empty) text; a link's text is one text.
 * The markdown conversion and `parseDocument` both produce this form, so documents compare as JSON.
 */

/** A block key: short, random, base 62 (keys are unique within a page only). */
export function defaultNewKey(): string {
  return newId(10);
}

/** Appends items one by one: `push(...items)` passes them as arguments and overflows the stack past ~100,000. */
export function appendAll<T>(target: T[], items: readonly T[]): T[] {
  for (const item of items) target.push(item);
  return target;
}

export function leaf(text: string, marks: Mark[] = []): Leaf {
  return { object: 'leaf', text, marks };
}

export function textOf(leaves: Leaf[]): Text {
  return { object: 'text', leaves: leaves.length > 0 ? leaves : [leaf('')] };
}

export function emptyText(): Text {
  return textOf([]);
}

export function mark(type: MarkType, data?: Record<string, unknown>): Mark {
  return data && Object.keys(data).length > 0 ? { object: 'mark', type, data } : { object: 'mark', type };
}

export function emptyDocument(): DocumentNode {
  return { object: 'document', data: {}, nodes: [] };
}

/** Identity of a mark for merging leaves: its type and, for colors, which colors. */
export function markIdentity(value: Mark): string {
  return value.data ? `${value.type}:${canonicalJson(value.data)}` : value.type;
}

export function sameMarks(a: readonly Mark[], b: readonly Mark[]): boolean {
  return a.length === b.length && a.every((value, index) => markIdentity(value) === markIdentity(b[index]));
}

const MARK_ORDER = new Map<MarkType, number>(MARK_TYPES.map((type, index) => [type, index]));

/** Marks unique by type (the first one of a type wins), in `MARK_TYPES` order. */
export function normalizeMarks(marks: readonly Mark[]): Mark[] {
  const byType = new Map<MarkType, Mark>();
  for (const value of marks) if (!byType.has(value.type)) byType.set(value.type, value);
  return [...byType.values()].sort((a, b) => MARK_ORDER.get(a.type)! - MARK_ORDER.get(b.type)!);
}

/** Leaves with empty ones dropped and neighbours with the same marks merged (marks already normal). */
export function normalizeLeaves(leaves: readonly Leaf[]): Leaf[] {
  const merged: Leaf[] = [];
  for (const next of leaves) {
    if (next.text === '') continue;
    const last = merged[merged.length - 1];
    if (last && sameMarks(last.marks, next.marks)) merged[merged.length - 1] = leaf(last.text + next.text, last.marks);
    else merged.push(next);
  }
  return merged;
}

/**
 * Inline content in normal form: neighbouring texts merged, a text before, between and after
 * inlines. The key of a merged text is the first one's.
 */
export function normalizeInlineContent(nodes: ReadonlyArray<Text | Inline>): Array<Text | Inline> {
  const result: Array<Text | Inline> = [];
  let pending: { key?: string; leaves: Leaf[] } | null = null;
  const flush = () => {
    const text = textOf(normalizeLeaves(pending?.leaves ?? []));
    if (pending?.key !== undefined) text.key = pending.key;
    result.push(text);
    pending = null;
  };
  for (const node of nodes) {
    if (node.object === 'text') {
      pending ??= node.key !== undefined ? { key: node.key, leaves: [] } : { leaves: [] };
      appendAll(pending.leaves, node.leaves);
      continue;
    }
    flush();
    result.push(node);
  }
  flush();
  return result;
}

/** The text of inline content, without marks. */
export function inlineContentText(nodes: ReadonlyArray<Block | Inline | Text>): string {
  let text = '';
  for (const node of nodes) {
    if (node.object === 'text') for (const part of node.leaves) text += part.text;
    else if (node.object === 'inline') text += inlineText(node);
  }
  return text;
}

function inlineText(node: Inline): string {
  switch (node.type) {
    case 'emoji':
      return emojiCharacter(node.data);
    case 'inline-math':
      return typeof node.data?.formula === 'string' ? node.data.formula : '';
    case 'inline-image':
      return '';
    default:
      return inlineContentText(node.nodes ?? []);
  }
}

/** An emoji inline's character, from `data.code`: hexadecimal code points joined by `-` (`1f44d`). */
export function emojiCharacter(data: Record<string, unknown> | undefined): string {
  const code = data?.code;
  if (typeof code !== 'string' || !/^[0-9a-fA-F]{1,6}(-[0-9a-fA-F]{1,6}){0,9}$/.test(code)) return '';
  const points = code.split('-').map((hex) => parseInt(hex, 16));
  return points.every((point) => point <= 0x10ffff) ? String.fromCodePoint(...points) : '';
}

/**
 * JSON with object keys sorted, node `key`s left out: two blocks with the same fingerprint have
 * the same content. Data objects keep a property named `key`; only nodes' keys are ignored.
 */
export function fingerprint(node: Block | Inline | Text): string {
  return canonicalJson(node, true);
}

export function canonicalJson(value: unknown, ignoreNodeKeys = false): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, ignoreNodeKeys)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const isNode = ignoreNodeKeys && (record.object === 'block' || record.object === 'inline' || record.object === 'text');
    const entries = Object.keys(record)
      .filter((name) => record[name] !== undefined && !(isNode && name === 'key'))
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson(record[name], ignoreNodeKeys && name !== 'data')}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A copy of the node without any node keys (data untouched): for comparing content. */
export function withoutKeys<T extends DocumentNode | Block | Inline | Text>(node: T): T {
  if (node.object === 'document') return { ...node, nodes: node.nodes.map((child) => withoutKeys(child)) };
  const { key: _key, ...rest } = node as Block | Inline | Text;
  if ('nodes' in rest && rest.nodes) return { ...rest, nodes: rest.nodes.map((child: Block | Inline | Text) => withoutKeys(child)) } as T;
  return rest as T;
}

/** Every block of the document, depth first, with the top-level block it sits in. */
export function* walkBlocks(document: DocumentNode): Generator<{ block: Block; top: Block }> {
  for (const top of document.nodes) {
    const stack: Block[] = [top];
    while (stack.length > 0) {
      const block = stack.pop()!;
      yield { block, top };
      const children = block.nodes ?? [];
      for (let index = children.length - 1; index >= 0; index--) {
        const child = children[index];
        if (child.object === 'block') stack.push(child);
      }
    }
  }
}
