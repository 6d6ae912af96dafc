import type { Block, BlockType, ContentRef, DocumentNode, Inline, Leaf, Mark, MarkType, Text } from '../document.model';
import { emptyText, leaf, mark, normalizeInlineContent, textOf } from '../document.nodes';
import { BLOCK_CONTENT } from '../document.schema';

/** Short builders for documents in normal form, for specs. */

export function doc(...nodes: Block[]): DocumentNode {
  return { object: 'document', data: {}, nodes };
}

/** A leaf with marks given by type (`'bold'`) or as marks (`mark('color', {...})`). */
export function text(value: string, ...marks: Array<MarkType | Mark>): Text {
  return textOf([leafOf(value, ...marks)]);
}

export function leafOf(value: string, ...marks: Array<MarkType | Mark>): Leaf {
  return leaf(
    value,
    marks.map((value) => (typeof value === 'string' ? mark(value) : value)),
  );
}

/** A text of several leaves: `leaves(['a'], ['b', 'bold'])`. */
export function leaves(...parts: Array<[string, ...Array<MarkType | Mark>]>): Text {
  return textOf(parts.map(([value, ...marks]) => leafOf(value, ...marks)));
}

export function block(type: BlockType, nodes: Array<Block | Inline | Text | string> = [], data?: Record<string, unknown>): Block {
  const kind = BLOCK_CONTENT[type].kind;
  const children = nodes.map((node) => (typeof node === 'string' ? text(node) : node));
  return {
    object: 'block',
    type,
    ...(data ? { data } : {}),
    ...(kind === 'void'
      ? { isVoid: true }
      : { nodes: kind === 'inline' ? normalizeInlineContent(children as Array<Text | Inline>) : children }),
  };
}

export function paragraph(...nodes: Array<Inline | Text | string>): Block {
  return block('paragraph', nodes.length > 0 ? nodes : [emptyText()]);
}

export function link(ref: ContentRef, ...content: Array<Text | string>): Inline {
  const texts = content.map((node) => (typeof node === 'string' ? text(node) : node));
  return {
    object: 'inline',
    type: ref.kind === 'user' ? 'mention' : 'link',
    data: { ref },
    nodes: [textOf(texts.flatMap((node) => node.leaves))],
  };
}

export function inlineImage(ref: ContentRef, alt?: string): Inline {
  return { object: 'inline', type: 'inline-image', isVoid: true, data: alt ? { ref, alt } : { ref } };
}

export function inlineMath(formula: string): Inline {
  return { object: 'inline', type: 'inline-math', isVoid: true, data: { formula } };
}

export function list(type: 'list-unordered' | 'list-ordered' | 'list-tasks', ...items: Block[][]): Block {
  return block(
    type,
    items.map((content) => block('list-item', content)),
  );
}

export function image(ref: ContentRef, alt?: string, ...caption: Array<Inline | Text | string>): Block {
  return block('image', caption.length > 0 ? caption : [emptyText()], alt ? { ref, alt } : { ref });
}

/** Keys k1, k2, ... in the order asked for. */
export function sequentialKeys(prefix = 'k'): () => string {
  let next = 0;
  return () => `${prefix}${++next}`;
}

export const page = (id: string): ContentRef => ({ kind: 'page', page: id });
export const file = (id: string): ContentRef => ({ kind: 'file', file: id });
export const url = (value: string): ContentRef => ({ kind: 'url', url: value });
