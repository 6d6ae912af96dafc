/**
 * The JSON document model of a page body, as the platform's clients read and write it
 * (docs/content.md): blocks, inlines and texts made of leaves with marks.
 */
export interface DocumentNode {
  object: 'document';
  data: { schemaVersion?: number } & Record<string, unknown>;
  nodes: Block[];
}

export interface Block {
  object: 'block';
  type: BlockType;
  /** Stable id of the block inside its page: comments target it, merges match blocks by it. */
  key?: string;
  data?: Record<string, unknown>;
  nodes?: Array<Block | Inline | Text>;
  isVoid?: boolean;
}

export interface Inline {
  object: 'inline';
  type: InlineType;
  key?: string;
  data?: Record<string, unknown>;
  nodes?: Text[];
  isVoid?: boolean;
}

export interface Text {
  object: 'text';
  key?: string;
  leaves: Leaf[];
}

export interface Leaf {
  object: 'leaf';
  text: string;
  marks: Mark[];
}

export interface Mark {
  object: 'mark';
  type: MarkType;
  data?: Record<string, unknown>;
}

export const BLOCK_TYPES = [
  'paragraph',
  'heading-1',
  'heading-2',
  'heading-3',
  'list-unordered',
  'list-ordered',
  'list-tasks',
  'list-item',
  'code',
  'code-line',
  'hint',
  'blockquote',
  'divider',
  'table',
  'table-row',
  'table-cell',
  'images',
  'image',
  'file',
  'embed',
  'expandable',
  'tabs',
  'tabs-item',
  'math',
  'content-ref',
  'swagger',
  'openapi-operation',
  'stepper',
  'stepper-step',
  'columns',
  'column',
] as const;
export type BlockType = (typeof BLOCK_TYPES)[number];

export const INLINE_TYPES = ['link', 'inline-image', 'emoji', 'inline-math', 'mention', 'annotation'] as const;
export type InlineType = (typeof INLINE_TYPES)[number];

export const MARK_TYPES = ['bold', 'italic', 'code', 'strikethrough', 'keyboard', 'superscript', 'subscript', 'color'] as const;
export type MarkType = (typeof MARK_TYPES)[number];

/** Where a link, image, file block or content-ref points (docs/content.md, "Content references"). */
export type ContentRef =
  | { kind: 'page'; page: string; space?: string }
  | { kind: 'file'; file: string; space?: string }
  | { kind: 'anchor'; anchor: string; page?: string; space?: string }
  | { kind: 'url'; url: string }
  | { kind: 'space'; space: string }
  | { kind: 'collection'; collection: string }
  | { kind: 'user'; user: string }
  | { kind: 'openapi'; spec: string };
