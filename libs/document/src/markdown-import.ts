import { DomainError } from '#platform/errors';
import type { LinkResolver } from './content-refs';
import type { Block, DocumentNode } from './document.model';
import { defaultNewKey, inlineContentText } from './document.nodes';
import { MarkdownImporter } from './markdown-blocks';
import { yaml } from './packages';

/**
 * Markdown to the JSON document model (docs/content.md, "Markdown"): GitHub-flavoured markdown read
 * by mdast-util-from-markdown, plus the platform's own block syntax (split off first, see
 * markdown-containers.ts), inline math and HTML marks. What has no place in the model is kept as
 * text rather than lost. Here the entry and front matter; blocks are read in markdown-blocks.ts,
 * inline content in markdown-phrasing.ts, and the text is parsed into mdast in markdown-parse.ts.
 */

export { parseMarkdownParts, type MarkdownReader } from './markdown-parse';

export interface MarkdownToDocumentOptions {
  /** Keys of the blocks, in document order (default: short random base-62 strings). */
  newKey?: () => string;
  /** Maps hrefs the caller knows (relative paths, temporary refs) before the default rules. */
  resolveLink?: LinkResolver;
}

export interface MarkdownDocument {
  document: DocumentNode;
  /** Front matter `title:`, else the text of a leading `# heading` (then left out of the body). */
  title: string | null;
  frontMatter: Record<string, unknown> | null;
}

/** Markdown longer than this is refused: the conversion is linear, but a page body is not a book. */
export const MAX_MARKDOWN_LENGTH = 1_048_576;

export function markdownToDocument(markdown: string, options: MarkdownToDocumentOptions = {}): MarkdownDocument {
  if (markdown.length > MAX_MARKDOWN_LENGTH) {
    throw new DomainError(413, `the markdown is ${markdown.length} characters long, more than the ${MAX_MARKDOWN_LENGTH} a page may have`);
  }
  const { frontMatter, body } = splitFrontMatter(markdown);
  const importer = new MarkdownImporter(options.resolveLink);
  const nodes = importer.flow(body, 1, 0);

  let title: string | null = null;
  const frontMatterTitle = frontMatter?.title;
  if (typeof frontMatterTitle === 'string' || typeof frontMatterTitle === 'number') {
    title = String(frontMatterTitle);
  } else if (nodes.length > 0 && importer.isTitleHeading(nodes[0])) {
    title = inlineContentText(nodes[0].nodes ?? [])
      .replace(/\s+/g, ' ')
      .trim();
    nodes.shift();
  }

  const document: DocumentNode = { object: 'document', data: {}, nodes };
  assignKeys(document, options.newKey ?? defaultNewKey);
  return { document, title, frontMatter };
}

/** Gives every block a key, in document order (pre-order). */
function assignKeys(document: DocumentNode, newKey: () => string): void {
  const stack: Block[] = [...document.nodes].reverse();
  while (stack.length > 0) {
    const block = stack.pop()!;
    block.key = newKey();
    const children = block.nodes ?? [];
    for (let index = children.length - 1; index >= 0; index--) {
      const child = children[index];
      if (child.object === 'block') stack.push(child);
    }
  }
}

// A YAML block fenced by `---` lines at the very start (closing `...` is YAML's own end marker).
const FRONT_MATTER = /^---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Front matter as plain JSON data; YAML that does not parse to a mapping is not front matter. */
function splitFrontMatter(markdown: string): { frontMatter: Record<string, unknown> | null; body: string } {
  const match = FRONT_MATTER.exec(markdown);
  if (!match) return { frontMatter: null, body: markdown };
  let data: unknown;
  try {
    data = yaml().parse(match[1] ?? '', { maxAliasCount: 100 });
  } catch {
    return { frontMatter: null, body: markdown };
  }
  if (data === null || data === undefined) return { frontMatter: {}, body: markdown.slice(match[0].length) };
  if (typeof data !== 'object' || Array.isArray(data)) return { frontMatter: null, body: markdown };
  return { frontMatter: plainData(data, 0) as Record<string, unknown>, body: markdown.slice(match[0].length) };
}

/** JSON-safe copy: no prototype keys, dates as ISO strings, nesting capped. */
function plainData(value: unknown, depth: number): unknown {
  if (depth > 32) return null;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((item) => plainData(item, depth + 1));
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) if (!UNSAFE_KEYS.has(name)) copy[name] = plainData(item, depth + 1);
    return copy;
  }
  if (typeof value === 'bigint') return Number(value);
  return typeof value === 'function' || typeof value === 'symbol' ? null : value;
}
