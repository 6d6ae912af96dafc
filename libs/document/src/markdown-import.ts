import type {
  Blockquote,
  Code,
  Definition,
  Heading,
  Html,
  List,
  ListItem,
  Nodes,
  Paragraph,
  PhrasingContent,
  Root,
  RootContent,
  Table,
} from 'mdast';
import type { Construct, Extension as MicromarkExtension } from 'micromark-util-types';
import { DomainError } from '#platform/errors';
import { lazyPackage } from '#platform/lazy-package';
import { refOfHref, type LinkResolver } from './content-refs';
import type { Block, BlockType, ContentRef, DocumentNode, Inline, Mark, Text } from './document.model';
import {
  appendAll,
  defaultNewKey,
  emptyText,
  inlineContentText,
  leaf,
  mark,
  normalizeInlineContent,
  normalizeLeaves,
  normalizeMarks,
  textOf,
} from './document.nodes';
import { BLOCK_CONTENT, HINT_STYLES, MAX_CONTAINER_DEPTH, type HintStyle } from './document.schema';
import { hasPlatformLines, splitContainers, type Segment, type TagSegment } from './markdown-containers';
import { guardMarkdown, PART_MIN_CHARS, topLevelParts } from './markdown-guards';
import {
  captionOfHast,
  figuresOfHtml,
  htmlTagCount,
  markOfTag,
  MAX_HTML_TAGS,
  parseAttributes,
  parseInlineTag,
  type Figure,
} from './markdown-html';
import { inlineMathFromMarkdown, inlineMathSyntax, type InlineMathNode } from './markdown-math';
import { hastFromHtml, hastToMdast, mdastFromMarkdown, mdastGfm, micromarkGfm, yaml } from './packages';

/**
 * Markdown to the JSON document model (docs/content.md, "Markdown"): GitHub-flavoured markdown read
 * by mdast-util-from-markdown, plus the platform's own block syntax (split off first, see
 * markdown-containers.ts), inline math and HTML marks. What has no place in the model is kept as
 * text rather than lost.
 */

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
/**
 * How many list items or block quotes deep the platform's block syntax is still recognised (their
 * source is read again for it, so each level costs one more pass over its text).
 */
const MAX_REPARSE_LEVEL = 3;

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

// ---- mdast -----------------------------------------------------------------------------------------

/**
 * GFM without micromark's literal-autolink constructs: they look back over the whole paragraph at
 * every word when a `[` is open before it (and often across lines), which is quadratic in the
 * paragraph. mdast-util-gfm's transform still finds literal URLs and emails afterwards, in linear
 * time, in the text of the tree.
 */
const LITERAL_AUTOLINKS = new Set(['wwwAutolink', 'protocolAutolink', 'emailAutolink']);
const gfmExtensions = lazyPackage(() => ({
  syntax: withoutLiteralAutolinks(micromarkGfm().gfm()),
  fromMarkdown: mdastGfm().gfmFromMarkdown(),
}));

function withoutLiteralAutolinks(extension: MicromarkExtension): MicromarkExtension {
  const text: NonNullable<MicromarkExtension['text']> = {};
  for (const [code, constructs] of Object.entries(extension.text ?? {})) {
    const kept = (Array.isArray(constructs) ? constructs : [constructs]).filter(
      (construct): construct is Construct => construct !== undefined && !LITERAL_AUTOLINKS.has(construct.name ?? ''),
    );
    if (kept.length > 0) text[Number(code)] = kept;
  }
  return { ...extension, text };
}

/** Reads markdown with micromark: `extensions` are added to the reader's own. */
export type MarkdownReader = (source: string, extensions: readonly MicromarkExtension[]) => Root;

function parseMarkdown(source: string, extensions: readonly MicromarkExtension[] = []): Root {
  const gfm = gfmExtensions();
  return mdastFromMarkdown().fromMarkdown(source, {
    extensions: [gfm.syntax, inlineMathSyntax(), ...extensions],
    mdastExtensions: [...gfm.fromMarkdown, inlineMathFromMarkdown()],
  });
}

/**
 * The parts of a long text (topLevelParts), each parsed on its own, so that parsing stays linear.
 * A reference link (`[text][label]`, `[label]`) or a footnote reference (`[^label]`) is only read
 * as one when its label is defined, anywhere in the text: a part that may use a definition of
 * another part is parsed again with those labels declared to micromark.
 */
export function parseMarkdownParts(
  markdown: string,
  minPartChars = PART_MIN_CHARS,
  read: MarkdownReader = parseMarkdown,
): Array<{ text: string; root: Root }> {
  const parts = topLevelParts(markdown, minPartChars);
  const roots = parts.map((part) => read(part, []));
  if (roots.length === 1) return [{ text: parts[0], root: roots[0] }];
  const declaredByPart = roots.map(declaredLabels);
  const all = {
    links: new Set(declaredByPart.flatMap((declared) => [...declared.links])),
    footnotes: new Set(declaredByPart.flatMap((declared) => [...declared.footnotes])),
  };
  return roots.map((root, index) => {
    const elsewhere = {
      links: [...all.links].filter((label) => !declaredByPart[index].links.has(label)),
      footnotes: [...all.footnotes].filter((label) => !declaredByPart[index].footnotes.has(label)),
    };
    const text = parts[index];
    const reread = (elsewhere.links.length > 0 || elsewhere.footnotes.length > 0) && text.includes('[');
    return { text, root: reread ? read(text, [definedElsewhere(elsewhere)]) : root };
  });
}

/** The labels a tree defines, as micromark keeps them (micromark-util-normalize-identifier). */
function declaredLabels(root: Root): { links: Set<string>; footnotes: Set<string> } {
  const links = new Set<string>();
  const footnotes = new Set<string>();
  const normalized = (label: string) =>
    label
      .replace(/[\t\n\r ]+/g, ' ')
      .replace(/^ | $/g, '')
      .toLowerCase()
      .toUpperCase();
  const stack: Nodes[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'definition') links.add(normalized(node.label ?? node.identifier));
    else if (node.type === 'footnoteDefinition') footnotes.add(normalized(node.label ?? node.identifier));
    if ('children' in node && node.type !== 'paragraph' && node.type !== 'heading' && node.type !== 'table')
      appendAll(stack, node.children as Nodes[]);
  }
  return { links, footnotes };
}

/**
 * Declares labels defined in other parts of the text: micromark keeps the labels it has seen
 * defined in its parser (`defined`, and GFM's `gfmFootnotes`, filled while the blocks are read,
 * before any text is), so a construct tried at the first block start adds them there, and
 * matches nothing.
 */
function definedElsewhere(labels: { links: readonly string[]; footnotes: readonly string[] }): MicromarkExtension {
  const declared = new WeakSet<object>();
  const construct: Construct = {
    name: 'definedElsewhere',
    tokenize(_effects, _ok, nok) {
      const parser = this.parser as typeof this.parser & { gfmFootnotes?: string[] };
      if (!declared.has(parser)) {
        declared.add(parser);
        for (const label of labels.links) parser.defined.push(label);
        const footnotes = (parser.gfmFootnotes ??= []);
        for (const label of labels.footnotes) footnotes.push(label);
      }
      return nok;
    },
  };
  return { flow: { null: [construct] } };
}

/** Phrasing as the walker sees it: mdast's, inline math, and paired HTML tags made into spans. */
type Phrasing = PhrasingContent | InlineMathNode | MarkSpan | HtmlLink;
interface MarkSpan {
  type: 'markSpan';
  mark: Mark;
  children: Phrasing[];
}
interface HtmlLink {
  type: 'htmlLink';
  href: string;
  children: Phrasing[];
}

interface Source {
  /** The text the mdast positions point into. */
  text: string;
  definitions: Map<string, Definition>;
}

const HEADING_TYPES: readonly BlockType[] = ['heading-1', 'heading-2', 'heading-3'];

class MarkdownImporter {
  /** Level-1 headings written `# ...` (a setext heading is never the title). */
  private readonly atxHeadings = new WeakSet<Block>();

  constructor(private readonly resolveLink: LinkResolver | undefined) {}

  isTitleHeading(block: Block): boolean {
    return block.type === 'heading-1' && this.atxHeadings.has(block) && inlineContentText(block.nodes ?? []).trim() !== '';
  }

  /** Blocks of a markdown text at `depth`, its platform containers split off first. */
  flow(markdown: string, depth: number, reparseLevel: number): Block[] {
    return this.segments(splitContainers(markdown, MAX_CONTAINER_DEPTH), depth, reparseLevel);
  }

  private segments(segments: readonly Segment[], depth: number, reparseLevel: number): Block[] {
    const blocks: Block[] = [];
    for (const segment of segments) {
      switch (segment.kind) {
        case 'markdown':
          appendAll(blocks, this.markdown(segment.text, depth, reparseLevel));
          break;
        case 'math':
          blocks.push(voidBlock('math', { formula: segment.formula }));
          break;
        case 'details':
          if (depth > MAX_CONTAINER_DEPTH) appendAll(blocks, this.literal(segment.title, segment.children, undefined, depth, reparseLevel));
          else blocks.push(block('expandable', this.segments(segment.children, depth + 1, reparseLevel), { title: segment.title }));
          break;
        case 'tag':
          appendAll(blocks, this.tag(segment, depth, reparseLevel));
          break;
      }
    }
    return blocks;
  }

  /** A tag that has no place here (a tab outside tabs, a file without a source): its lines as text, its content kept. */
  private literal(line: string, children: readonly Segment[], endLine: string | undefined, depth: number, reparseLevel: number): Block[] {
    return [
      ...(line.trim() !== '' ? [paragraph([textOf([leaf(line.trim())])])] : []),
      ...this.segments(children, depth, reparseLevel),
      ...(endLine !== undefined ? [paragraph([textOf([leaf(endLine.trim())])])] : []),
    ];
  }

  private tag(segment: TagSegment, depth: number, reparseLevel: number): Block[] {
    const { attributes, children } = segment;
    const asText = () => this.literal(segment.line, children, segment.endLine, depth, reparseLevel);
    const container = (type: BlockType, data?: Record<string, unknown>) =>
      depth > MAX_CONTAINER_DEPTH
        ? this.segments(children, depth, reparseLevel)
        : [block(type, this.segments(children, depth + 1, reparseLevel), data)];
    switch (segment.name) {
      case 'hint': {
        const style = (HINT_STYLES as readonly string[]).includes(attributes.style) ? (attributes.style as HintStyle) : 'info';
        return container('hint', { style });
      }
      case 'swagger':
        return container('swagger', pickStrings(attributes, ['src', 'path', 'method']));
      case 'tabs':
        return this.itemized(segment, 'tabs', 'tab', 'tabs-item', depth, reparseLevel);
      case 'stepper':
        return this.itemized(segment, 'stepper', 'step', 'stepper-step', depth, reparseLevel);
      case 'columns':
        return this.itemized(segment, 'columns', 'column', 'column', depth, reparseLevel);
      case 'code': {
        // GitBook's wrapper of a code block: its title goes to the code block inside.
        const blocks = this.segments(children, depth, reparseLevel);
        const code = blocks.find((candidate) => candidate.type === 'code');
        if (code && attributes.title && code.data?.title === undefined) code.data = { ...code.data, title: attributes.title };
        return blocks;
      }
      case 'embed':
        if (!attributes.url) return asText();
        return [block('embed', this.caption(children, depth, reparseLevel), { url: attributes.url })];
      case 'file': {
        const ref = refOfHref(attributes.src ?? '', this.resolveLink);
        if (!ref) return asText();
        return [block('file', this.caption(children, depth, reparseLevel), { ref })];
      }
      case 'content-ref': {
        const ref = refOfHref(attributes.url ?? '', this.resolveLink);
        return ref ? [voidBlock('content-ref', { ref })] : asText();
      }
      case 'openapi-operation': {
        if (!attributes.spec) return asText();
        return [
          voidBlock('openapi-operation', {
            ref: { kind: 'openapi', spec: attributes.spec },
            ...pickStrings(attributes, ['path', 'method']),
          }),
        ];
      }
      default:
        // tab, step and column outside their parent.
        return asText();
    }
  }

  /** Tabs, steppers and columns: their item tags become items; anything else between them follows the block. */
  private itemized(
    segment: TagSegment,
    type: BlockType,
    itemTag: string,
    itemType: BlockType,
    depth: number,
    reparseLevel: number,
  ): Block[] {
    if (depth + 1 > MAX_CONTAINER_DEPTH) {
      return segment.children.flatMap((child) =>
        child.kind === 'tag' && child.name === itemTag
          ? this.segments(child.children, depth, reparseLevel)
          : this.segments([child], depth, reparseLevel),
      );
    }
    const items: Block[] = [];
    const after: Block[] = [];
    for (const child of segment.children) {
      if (child.kind === 'tag' && child.name === itemTag) {
        const title = child.attributes.title;
        items.push(
          block(
            itemType,
            this.segments(child.children, depth + 2, reparseLevel),
            itemType === 'tabs-item' ? { title: title ?? '' } : undefined,
          ),
        );
      } else {
        appendAll(after, this.segments([child], depth, reparseLevel));
      }
    }
    return [block(type, items), ...after];
  }

  /** The caption of a file or embed: the inline content of its markdown, paragraphs joined by line breaks. */
  private caption(children: readonly Segment[], depth: number, reparseLevel: number): Array<Text | Inline> {
    const parts: Array<Text | Inline> = [];
    for (const child of this.segments(children, depth + 1, reparseLevel)) {
      if (parts.length > 0) parts.push(textOf([leaf('\n')]));
      if (BLOCK_CONTENT[child.type].kind === 'inline') appendAll(parts, (child.nodes ?? []) as Array<Text | Inline>);
      else parts.push(textOf([leaf(blockText(child))]));
    }
    return normalizeInlineContent(parts);
  }

  // ---- ordinary markdown ----

  private markdown(text: string, depth: number, reparseLevel: number): Block[] {
    if (text.trim() === '') return [];
    const parts = parseMarkdownParts(guardMarkdown(text));
    const definitions = new Map<string, Definition>();
    for (const { root } of parts)
      for (const [identifier, definition] of collectDefinitions(root))
        if (!definitions.has(identifier)) definitions.set(identifier, definition);
    const blocks: Block[] = [];
    for (const { text: partText, root } of parts)
      appendAll(blocks, this.flowNodes(root.children, { text: partText, definitions }, depth, reparseLevel));
    return blocks;
  }

  private flowNodes(nodes: readonly Nodes[], source: Source, depth: number, reparseLevel: number): Block[] {
    const blocks: Block[] = [];
    let phrasing: Phrasing[] = [];
    const flushPhrasing = () => {
      if (phrasing.length === 0) return;
      appendAll(blocks, this.paragraph(phrasing, source));
      phrasing = [];
    };
    for (const node of nodes) {
      switch (node.type) {
        case 'paragraph':
          flushPhrasing();
          appendAll(blocks, this.paragraph(node.children, source));
          break;
        case 'heading':
          flushPhrasing();
          blocks.push(this.heading(node, source));
          break;
        case 'thematicBreak':
          flushPhrasing();
          blocks.push(voidBlock('divider'));
          break;
        case 'blockquote':
          flushPhrasing();
          appendAll(blocks, this.blockquote(node, source, depth, reparseLevel));
          break;
        case 'list':
          flushPhrasing();
          appendAll(blocks, this.list(node, source, depth, reparseLevel));
          break;
        case 'code':
          flushPhrasing();
          blocks.push(codeBlock(node));
          break;
        case 'html':
          flushPhrasing();
          appendAll(blocks, this.html(node, depth));
          break;
        case 'table':
          flushPhrasing();
          blocks.push(this.table(node, source));
          break;
        case 'footnoteDefinition': {
          flushPhrasing();
          const content = this.flowNodes(node.children, source, depth, reparseLevel);
          const label = textOf([leaf(`[^${node.label ?? node.identifier}]: `)]);
          const first = content[0];
          if (first?.type === 'paragraph') first.nodes = normalizeInlineContent([label, ...((first.nodes ?? []) as Array<Text | Inline>)]);
          else content.unshift(paragraph([label]));
          appendAll(blocks, content);
          break;
        }
        case 'definition':
        case 'yaml':
          break;
        default:
          // Phrasing where blocks go (HTML converted by hast-util-to-mdast): one paragraph per run.
          if (isPhrasing(node)) phrasing.push(node);
          else if ('children' in node) {
            flushPhrasing();
            appendAll(blocks, this.flowNodes(node.children as Nodes[], source, depth, reparseLevel));
          }
      }
    }
    flushPhrasing();
    return blocks;
  }

  private paragraph(children: readonly Phrasing[], source: Source): Block[] {
    const content = this.phrasing(children, source);
    // A paragraph of comments or unknown tags only leaves nothing to show.
    if (content.length === 1 && inlineContentText(content) === '') return [];
    // Images with only whitespace between them: an images block.
    const images = content.filter((node): node is Inline => node.object === 'inline');
    if (images.length > 0 && images.every((node) => node.type === 'inline-image') && inlineContentText(content).trim() === '') {
      return [
        block(
          'images',
          images.map((image) => block('image', [emptyText()], image.data)),
        ),
      ];
    }
    return [paragraph(content)];
  }

  private imagesBlock(figures: readonly Figure[]): Block | null {
    const images: Block[] = [];
    for (const figure of figures) {
      const ref = refOfHref(figure.src, this.resolveLink);
      if (ref) images.push(block('image', figure.caption, figure.alt !== '' ? { ref, alt: figure.alt } : { ref }));
    }
    return images.length > 0 ? block('images', images) : null;
  }

  private heading(node: Heading, source: Source): Block {
    const type = HEADING_TYPES[Math.min(node.depth, 3) - 1];
    const heading = block(type, this.phrasing(node.children, source));
    const offset = node.position?.start.offset;
    if (node.depth === 1 && offset !== undefined && source.text[offset] === '#') this.atxHeadings.add(heading);
    return heading;
  }

  private blockquote(node: Blockquote, source: Source, depth: number, reparseLevel: number): Block[] {
    if (depth > MAX_CONTAINER_DEPTH) return this.flowNodes(node.children, source, depth, reparseLevel);
    const raw = rawOf(node, source);
    if (raw !== null && reparseLevel < MAX_REPARSE_LEVEL && hasPlatformLines(raw)) {
      return [block('blockquote', this.flow(dedentBlockquote(raw), depth + 1, reparseLevel + 1))];
    }
    return [block('blockquote', this.flowNodes(node.children, source, depth + 1, reparseLevel))];
  }

  private list(node: List, source: Source, depth: number, reparseLevel: number): Block[] {
    // A list item holds flow blocks, so it is the container whose depth counts.
    if (depth + 1 > MAX_CONTAINER_DEPTH) return node.children.flatMap((item) => this.flowNodes(item.children, source, depth, reparseLevel));
    const contents = node.children.map((item) => this.listItemContent(item, source, depth + 2, reparseLevel));
    // A task box is written on the item's first paragraph: an item without one cannot keep it.
    const tasks = node.children.some((item, index) => typeof item.checked === 'boolean' && startsWithParagraph(contents[index]));
    const type: BlockType = tasks ? 'list-tasks' : node.ordered ? 'list-ordered' : 'list-unordered';
    const items = node.children.map((item, index) =>
      block('list-item', contents[index], tasks ? { checked: item.checked === true && startsWithParagraph(contents[index]) } : undefined),
    );
    const start = node.ordered && !tasks && typeof node.start === 'number' && node.start !== 1 ? { start: node.start } : undefined;
    return [block(type, items, start)];
  }

  private listItemContent(item: ListItem, source: Source, depth: number, reparseLevel: number): Block[] {
    const raw = rawOf(item, source);
    if (raw !== null && reparseLevel < MAX_REPARSE_LEVEL && hasPlatformLines(raw)) {
      const column = (item.position?.start.column ?? 1) - 1;
      return this.flow(dedentListItem(raw, column, typeof item.checked === 'boolean'), depth, reparseLevel + 1);
    }
    return this.flowNodes(item.children, source, depth, reparseLevel);
  }

  private table(node: Table, source: Source): Block {
    const width = node.children[0]?.children.length ?? 0;
    const rows = node.children.map((row, index) => {
      const cells: Block[] = [];
      for (let column = 0; column < width; column++) {
        const cell = row.children[column];
        cells.push(block('table-cell', cell ? this.phrasing(cell.children, source) : [emptyText()]));
      }
      return block('table-row', cells, index === 0 ? { header: true } : undefined);
    });
    const align = (node.align ?? []).slice(0, width);
    while (align.length < width) align.push(null);
    return block(
      'table',
      rows,
      align.some((value) => value !== null && value !== undefined) ? { align: align.map((value) => value ?? null) } : undefined,
    );
  }

  private html(node: Html, depth: number): Block[] {
    const value = node.value.trim();
    if (/^<!--[\s\S]*-->$/.test(value) && !value.slice(4, -3).includes('-->')) return [];
    const figures = figuresOfHtml(value, this.resolveLink);
    if (figures) {
      const images = this.imagesBlock(figures);
      return images ? [images] : [];
    }
    if (htmlTagCount(value) > MAX_HTML_TAGS) return [paragraph([textOf([leaf(value)])])];
    // Other HTML (a centred logo, an HTML table): its content through hast-util-to-mdast.
    const converted = hastToMdast().toMdast(hastFromHtml().fromHtml(value, { fragment: true })) as Root;
    return this.flowNodes(converted.children, { text: '', definitions: new Map() }, depth, MAX_REPARSE_LEVEL);
  }

  // ---- phrasing ----

  /** Inline content of phrasing: marks from emphasis, strong, delete, code and HTML tags. */
  private phrasing(children: readonly Phrasing[], source: Source): Array<Text | Inline> {
    const out: Array<Text | Inline> = [];
    this.walk(children, [], out, source, false);
    return normalizeInlineContent(out);
  }

  /**
   * Appends the inline content of phrasing to `out`. Inside a link (`inLink`) only text is made:
   * links do not nest, and a link holds text only, so images and formulas become their text.
   */
  private walk(children: readonly Phrasing[], marks: Mark[], out: Array<Text | Inline>, source: Source, inLink: boolean): void {
    const push = (text: string, extra?: Mark) => {
      if (text !== '') out.push(textOf([leaf(text, normalizeMarks(extra ? [...marks, extra] : marks))]));
    };
    for (const node of pairHtmlTags(children)) {
      switch (node.type) {
        case 'text':
          // A soft line break is a space in the rendered page; hard breaks are `break` nodes.
          push(node.value.replace(/[ \t]*(\r\n|\r|\n)[ \t]*/g, ' '));
          break;
        case 'emphasis':
          this.walk(node.children, [...marks, mark('italic')], out, source, inLink);
          break;
        case 'strong':
          this.walk(node.children, [...marks, mark('bold')], out, source, inLink);
          break;
        case 'delete':
          this.walk(node.children, [...marks, mark('strikethrough')], out, source, inLink);
          break;
        case 'markSpan':
          this.walk(node.children, [...marks, node.mark], out, source, inLink);
          break;
        case 'inlineCode':
          // A code span's line endings are spaces (CommonMark); micromark leaves them in the value.
          push(node.value.replace(/\r\n|\r|\n/g, ' '), mark('code'));
          break;
        case 'break':
          push('\n');
          break;
        case 'inlineMath':
          if (inLink) push(node.value);
          else out.push({ object: 'inline', type: 'inline-math', isVoid: true, data: { formula: node.value } });
          break;
        case 'link':
          this.link(node.url, node.children, marks, out, source, inLink);
          break;
        case 'htmlLink':
          this.link(node.href, node.children, marks, out, source, inLink);
          break;
        case 'linkReference': {
          const definition = source.definitions.get(node.identifier);
          if (definition) this.link(definition.url, node.children, marks, out, source, inLink);
          else this.walk(node.children, marks, out, source, inLink);
          break;
        }
        case 'image':
          this.image(node.url, node.alt ?? '', marks, out, inLink);
          break;
        case 'imageReference': {
          const definition = source.definitions.get(node.identifier);
          if (definition) this.image(definition.url, node.alt ?? '', marks, out, inLink);
          else push(node.alt ?? '');
          break;
        }
        case 'html': {
          const tag = parseInlineTag(node.value);
          if (tag?.name === 'br') push('\n');
          else if (tag?.name === 'img' && !tag.closing) this.image(tag.attributes.src ?? '', tag.attributes.alt ?? '', marks, out, inLink);
          // Other tags (unpaired, unknown) and comments leave no text.
          break;
        }
        case 'footnoteReference':
          push(`[^${node.label ?? node.identifier}]`);
          break;
        default: {
          // Phrasing of extensions this reader does not know: its text.
          const other = node as { children?: Phrasing[]; value?: unknown };
          if (other.children) this.walk(other.children, marks, out, source, inLink);
          else if (typeof other.value === 'string') push(other.value);
        }
      }
    }
  }

  private link(
    href: string,
    children: readonly Phrasing[],
    marks: Mark[],
    out: Array<Text | Inline>,
    source: Source,
    inLink: boolean,
  ): void {
    const ref = inLink ? null : refOfHref(href, this.resolveLink);
    if (!ref) {
      this.walk(children, marks, out, source, inLink);
      return;
    }
    const inner: Array<Text | Inline> = [];
    this.walk(children, marks, inner, source, true);
    const leaves = normalizeLeaves(inner.flatMap((node) => (node.object === 'text' ? node.leaves : [])));
    out.push({ object: 'inline', type: ref.kind === 'user' ? 'mention' : 'link', data: { ref }, nodes: [textOf(leaves)] });
  }

  private image(url: string, alt: string, marks: Mark[], out: Array<Text | Inline>, inLink: boolean): void {
    const ref: ContentRef | null = inLink ? null : refOfHref(url, this.resolveLink);
    if (!ref) {
      if (alt !== '') out.push(textOf([leaf(alt, normalizeMarks(marks))]));
      return;
    }
    out.push({ object: 'inline', type: 'inline-image', isVoid: true, data: alt !== '' ? { ref, alt } : { ref } });
  }
}

// ---- helpers ---------------------------------------------------------------------------------------

function block(type: BlockType, nodes: Array<Block | Inline | Text>, data?: Record<string, unknown>): Block {
  const content = BLOCK_CONTENT[type];
  const normalized = content.kind === 'inline' ? normalizeInlineContent(nodes as Array<Text | Inline>) : nodes;
  return { object: 'block', type, ...(data && Object.keys(data).length > 0 ? { data } : {}), nodes: normalized };
}

function voidBlock(type: BlockType, data?: Record<string, unknown>): Block {
  return { object: 'block', type, ...(data && Object.keys(data).length > 0 ? { data } : {}), isVoid: true };
}

function paragraph(nodes: Array<Text | Inline>): Block {
  return block('paragraph', nodes);
}

function codeBlock(node: Code): Block {
  const lines = node.value.split(/\r\n|\r|\n/).map((line) => block('code-line', [textOf([leaf(line)])]));
  const data: Record<string, unknown> = {};
  // A language with a backtick only fits a ~~~ fence; the writer uses backticks, so it is dropped.
  if (node.lang && !node.lang.includes('`')) data.syntax = node.lang;
  const title = node.meta ? parseAttributes(node.meta).title : undefined;
  if (title !== undefined) data.title = title;
  return block('code', lines, data);
}

/** Whether blocks start with what markdown writes as a paragraph: a paragraph, or images without captions. */
function startsWithParagraph(blocks: readonly Block[]): boolean {
  const first = blocks[0];
  if (first?.type === 'paragraph') return true;
  return (
    first?.type === 'images' &&
    (first.nodes ?? []).every(
      (image) => image.object === 'block' && inlineContentText(image.nodes ?? []) === '' && image.nodes?.length === 1,
    )
  );
}

function pickStrings(attributes: Record<string, string>, names: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names) if (attributes[name] !== undefined) picked[name] = attributes[name];
  return picked;
}

/** Plain text of a block, lines joined. */
function blockText(target: Block): string {
  if (BLOCK_CONTENT[target.type].kind === 'inline') return inlineContentText(target.nodes ?? []);
  return (target.nodes ?? []).map((child) => (child.object === 'block' ? blockText(child) : '')).join('\n');
}

function collectDefinitions(root: Root): Map<string, Definition> {
  const definitions = new Map<string, Definition>();
  const stack: Nodes[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'definition') {
      if (!definitions.has(node.identifier)) definitions.set(node.identifier, node);
    } else if ('children' in node && node.type !== 'paragraph' && node.type !== 'heading' && node.type !== 'table') {
      appendAll(stack, node.children as Nodes[]);
    }
  }
  return definitions;
}

const PHRASING_TYPES = new Set([
  'text',
  'emphasis',
  'strong',
  'delete',
  'inlineCode',
  'break',
  'link',
  'linkReference',
  'image',
  'imageReference',
  'html',
  'footnoteReference',
  'inlineMath',
]);

function isPhrasing(node: Nodes | RootContent): node is PhrasingContent {
  return PHRASING_TYPES.has(node.type);
}

/**
 * Sibling HTML tags paired into spans: `<kbd>`...`</kbd>` around any phrasing becomes a span with
 * the keyboard mark, `<a href>`...`</a>` a link. A tag without its partner among the siblings is
 * dropped (its content stays), as a browser would.
 */
/** Nested HTML marks beyond this depth are ignored (there are eight marks; deeper is only repetition). */
const MAX_TAG_NESTING = 16;

function pairHtmlTags(children: readonly Phrasing[]): Phrasing[] {
  if (!children.some((child) => child.type === 'html')) return children as Phrasing[];
  interface Frame {
    name: string;
    open: { mark: Mark } | { href: string } | null;
    children: Phrasing[];
  }
  const stack: Frame[] = [{ name: '', open: null, children: [] }];
  const unwind = () => {
    const frame = stack.pop()!;
    appendAll(stack[stack.length - 1].children, frame.children);
  };
  for (const child of children) {
    const tag = child.type === 'html' ? parseInlineTag(child.value) : null;
    if (!tag) {
      stack[stack.length - 1].children.push(child);
      continue;
    }
    if (!tag.closing) {
      if (stack.length > MAX_TAG_NESTING) continue;
      const markOfElement = markOfTag(tag);
      if (markOfElement) {
        stack.push({ name: tag.name, open: { mark: markOfElement }, children: [] });
        continue;
      }
      if (tag.name === 'a' && tag.attributes.href !== undefined) {
        stack.push({ name: 'a', open: { href: tag.attributes.href }, children: [] });
        continue;
      }
      stack[stack.length - 1].children.push(child);
      continue;
    }
    let index = stack.length - 1;
    while (index > 0 && stack[index].name !== tag.name) index--;
    if (index === 0) continue;
    while (stack.length - 1 > index) unwind();
    const frame = stack.pop()!;
    const span: Phrasing =
      frame.open && 'mark' in frame.open
        ? { type: 'markSpan', mark: frame.open.mark, children: frame.children }
        : { type: 'htmlLink', href: (frame.open as { href: string }).href, children: frame.children };
    stack[stack.length - 1].children.push(span);
  }
  while (stack.length > 1) unwind();
  return stack[0].children;
}

function rawOf(node: Nodes, source: Source): string | null {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  return start !== undefined && end !== undefined && source.text !== '' ? source.text.slice(start, end) : null;
}

/** A block quote's own text: each line without its `>` (lazy lines as they are). */
function dedentBlockquote(raw: string): string {
  return raw
    .split(/\r\n|\r|\n/)
    .map((line) => line.replace(/^ {0,3}> ?/, ''))
    .join('\n');
}

/**
 * A list item's own text: the marker (and task box) off its first line, its content indentation
 * off the others. `column` is where the marker starts on its line.
 */
function dedentListItem(raw: string, column: number, task: boolean): string {
  const lines = raw.split(/\r\n|\r|\n/);
  const marker = /^([-+*]|\d{1,9}[.)])([ \t]*)/.exec(lines[0]);
  if (!marker) return raw;
  const spaces = marker[2].length;
  const rest = lines[0].slice(marker[0].length);
  // CommonMark: one to four spaces after the marker belong to it; five or more start indented code.
  const markerWidth = marker[1].length + (rest === '' ? 1 : spaces >= 5 ? 1 : spaces);
  let first = spaces >= 5 && rest !== '' ? lines[0].slice(marker[1].length + 1) : rest;
  if (task) first = first.replace(/^\[[ xX]\][ \t]?/, '');
  const indent = column + markerWidth;
  return [first, ...lines.slice(1).map((line) => stripColumns(line, indent))].join('\n');
}

/** The line without up to `columns` columns of indentation; a tab across the boundary leaves its other columns as spaces. */
function stripColumns(line: string, columns: number): string {
  let column = 0;
  let index = 0;
  while (index < line.length && column < columns) {
    if (line[index] === ' ') column++;
    else if (line[index] === '\t') {
      const width = 4 - (column % 4);
      if (column + width > columns) return ' '.repeat(column + width - columns) + line.slice(index + 1);
      column += width;
    } else break;
    index++;
  }
  return line.slice(index);
}
