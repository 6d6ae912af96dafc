import { BLOCK_TYPES, INLINE_TYPES, MARK_TYPES, type BlockType, type InlineType, type MarkType } from './document.model';

/**
 * What each node type holds (docs/content.md, "Document model"): the validation of client
 * documents, the normal form and the markdown conversions all read this one table.
 *
 * - `flow`: blocks that may stand on their own (paragraphs, lists, hints, ...);
 * - `inline`: texts and inlines, always starting and ending with a text (Slate's normal form);
 * - `children`: blocks of one structural type only (a list holds list items);
 * - `void`: nothing, the block is its data.
 */
export type BlockContent = { kind: 'flow' } | { kind: 'inline' } | { kind: 'children'; type: BlockType } | { kind: 'void' };

const flow = { kind: 'flow' } as const;
const inline = { kind: 'inline' } as const;
const none = { kind: 'void' } as const;
const only = (type: BlockType) => ({ kind: 'children', type }) as const;

export const BLOCK_CONTENT: Readonly<Record<BlockType, BlockContent>> = {
  paragraph: inline,
  'heading-1': inline,
  'heading-2': inline,
  'heading-3': inline,
  'list-unordered': only('list-item'),
  'list-ordered': only('list-item'),
  'list-tasks': only('list-item'),
  'list-item': flow,
  code: only('code-line'),
  'code-line': inline,
  hint: flow,
  blockquote: flow,
  divider: none,
  table: only('table-row'),
  'table-row': only('table-cell'),
  'table-cell': inline,
  images: only('image'),
  // An image, a file and an embed hold their caption.
  image: inline,
  file: inline,
  embed: inline,
  expandable: flow,
  tabs: only('tabs-item'),
  'tabs-item': flow,
  math: none,
  'content-ref': none,
  swagger: flow,
  'openapi-operation': none,
  stepper: only('stepper-step'),
  'stepper-step': flow,
  columns: only('column'),
  column: flow,
};

/** Blocks that only exist inside one parent type (a list item in a list, a cell in a row). */
const STRUCTURAL: ReadonlySet<BlockType> = new Set(
  Object.values(BLOCK_CONTENT).flatMap((content) => (content.kind === 'children' ? [content.type] : [])),
);

/** Whether a block may appear in the document or in a flow container (hint, list item, tab, ...). */
export function isFlowBlock(type: BlockType): boolean {
  return !STRUCTURAL.has(type);
}

/** Inlines that are their data: no text inside. */
export const VOID_INLINES: ReadonlySet<InlineType> = new Set<InlineType>(['inline-image', 'emoji', 'inline-math']);

export function isBlockType(value: unknown): value is BlockType {
  return typeof value === 'string' && (BLOCK_TYPES as readonly string[]).includes(value);
}
export function isInlineType(value: unknown): value is InlineType {
  return typeof value === 'string' && (INLINE_TYPES as readonly string[]).includes(value);
}
export function isMarkType(value: unknown): value is MarkType {
  return typeof value === 'string' && (MARK_TYPES as readonly string[]).includes(value);
}

export const HINT_STYLES = ['info', 'success', 'warning', 'danger'] as const;
export type HintStyle = (typeof HINT_STYLES)[number];

/** Limits of a document a client sends (and of what the markdown conversion builds). */
export const DOCUMENT_LIMITS = {
  /** Nesting of nodes: the document's own nodes are at depth 1, their children at 2, ... */
  depth: 32,
  /** Blocks, inlines, texts, leaves and marks together. */
  nodes: 20_000,
  /** Characters of all leaf texts together. */
  text: 1_000_000,
} as const;

/**
 * The deepest a container block (one holding flow blocks) may sit. The deepest content under a
 * container (a table: row, cell, link, text) takes five more levels, so whatever markdown builds
 * stays within `DOCUMENT_LIMITS.depth`; deeper markdown nesting is flattened.
 */
export const MAX_CONTAINER_DEPTH = DOCUMENT_LIMITS.depth - 8;
