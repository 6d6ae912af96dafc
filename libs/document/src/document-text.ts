import type { Block, ContentRef, DocumentNode, Inline, Text } from './document.model';
import { inlineContentText, walkBlocks } from './document.nodes';
import { BLOCK_CONTENT } from './document.schema';

/**
 * Plain text of documents, for search, previews and the links read model (docs/content.md,
 * "Search" and "Links").
 */

/** The document's text: one line per paragraph, heading, code line, caption or table row (cells tab-separated). */
export function documentText(document: DocumentNode): string {
  return blocksText(document.nodes);
}

function blocksText(blocks: ReadonlyArray<Block | Inline | Text>): string {
  return blocks
    .map((child) => (child.object === 'block' ? blockText(child) : ''))
    .filter((text) => text !== '')
    .join('\n');
}

/** A block's plain text (a title of an expandable or tab is its first line). */
export function blockText(block: Block): string {
  const children = block.nodes ?? [];
  switch (block.type) {
    case 'table-row':
      return children.map((cell) => (cell.object === 'block' ? blockText(cell) : '')).join('\t');
    case 'math':
      return typeof block.data?.formula === 'string' ? block.data.formula : '';
    case 'expandable':
    case 'tabs-item': {
      const title = typeof block.data?.title === 'string' ? block.data.title : '';
      return [title, blocksText(children)].filter((text) => text !== '').join('\n');
    }
    default:
      return BLOCK_CONTENT[block.type].kind === 'inline' ? inlineContentText(children) : blocksText(children);
  }
}

export interface DocumentSection {
  /** Key of the heading that opens the section; '' for the text before the first heading. */
  id: string;
  title: string;
  body: string;
}

const HEADINGS = new Set(['heading-1', 'heading-2', 'heading-3']);

/**
 * The document cut at its top-level headings: a section per heading, with the text up to the
 * next heading. Text before the first heading is a section with id '' and title '' (absent when
 * the document starts with a heading).
 */
export function documentSections(document: DocumentNode): DocumentSection[] {
  const sections: DocumentSection[] = [];
  let current: { id: string; title: string; blocks: Block[] } | null = null;
  const close = () => {
    if (current) sections.push({ id: current.id, title: current.title, body: blocksText(current.blocks) });
  };
  for (const block of document.nodes) {
    if (HEADINGS.has(block.type)) {
      close();
      current = { id: block.key ?? '', title: blockText(block), blocks: [] };
      continue;
    }
    current ??= { id: '', title: '', blocks: [] };
    current.blocks.push(block);
  }
  close();
  return sections;
}

export const PREVIEW_LENGTH = 300;

/** The plain text of the block with that key (at any depth), whitespace collapsed, at most 300 characters; null when no block has it. */
export function blockPreview(document: DocumentNode, key: string): string | null {
  for (const { block } of walkBlocks(document)) {
    if (block.key !== key) continue;
    const text = blockText(block).replace(/\s+/g, ' ').trim();
    const characters = Array.from(text);
    return characters.length <= PREVIEW_LENGTH
      ? text
      : `${characters
          .slice(0, PREVIEW_LENGTH - 1)
          .join('')
          .trimEnd()}…`;
  }
  return null;
}

export interface DocumentReference {
  ref: ContentRef;
  /** Key of the top-level block the reference is in. */
  key?: string;
}

/**
 * Every reference of the document, in document order: links, mentions, inline images, images,
 * file blocks, content refs, OpenAPI operations and embed URLs.
 */
export function documentReferences(document: DocumentNode): DocumentReference[] {
  const references: DocumentReference[] = [];
  for (const { block, top } of walkBlocks(document)) {
    const add = (ref: unknown) => {
      if (isRef(ref)) references.push(top.key !== undefined ? { ref, key: top.key } : { ref });
    };
    if (block.type === 'embed' && typeof block.data?.url === 'string') add({ kind: 'url', url: block.data.url });
    else add(block.data?.ref);
    for (const child of block.nodes ?? []) if (child.object === 'inline') add(child.data?.ref);
  }
  return references;
}

function isRef(value: unknown): value is ContentRef {
  return value !== null && typeof value === 'object' && typeof (value as { kind?: unknown }).kind === 'string';
}
