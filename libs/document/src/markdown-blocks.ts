/** Blocks of imported markdown: the platform's block syntax (tags, containers), then ordinary markdown through mdast. */
import type { Blockquote, Code, Definition, Heading, Html, List, ListItem, Nodes, Root, Table } from 'mdast';
import { refOfHref, type LinkResolver } from './content-refs';
import type { Block, BlockType, Inline, Text } from './document.model';
import { appendAll, emptyText, inlineContentText, leaf, normalizeInlineContent, textOf } from './document.nodes';
import { BLOCK_CONTENT, HINT_STYLES, MAX_CONTAINER_DEPTH, type HintStyle } from './document.schema';
import { hasPlatformLines, splitContainers, type Segment, type TagSegment } from './markdown-containers';
import { guardMarkdown } from './markdown-guards';
import { figuresOfHtml, htmlTagCount, MAX_HTML_TAGS, parseAttributes, type Figure } from './markdown-html';
import { collectDefinitions, parseMarkdownParts } from './markdown-parse';
import { InlineReader, isPhrasing, type Phrasing, type Source } from './markdown-phrasing';
import { hastFromHtml, hastToMdast } from './packages';

/**
 * How many list items or block quotes deep the platform's block syntax is still recognised (their
 * source is read again for it, so each level costs one more pass over its text).
 */
const MAX_REPARSE_LEVEL = 3;

const HEADING_TYPES: readonly BlockType[] = ['heading-1', 'heading-2', 'heading-3'];

export class MarkdownImporter {
  /** Level-1 headings written `# ...` (a setext heading is never the title). */
  private readonly atxHeadings = new WeakSet<Block>();
  private readonly inlines: InlineReader;

  constructor(private readonly resolveLink: LinkResolver | undefined) {
    this.inlines = new InlineReader(resolveLink);
  }

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
    const content = this.inlines.phrasing(children, source);
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
    const heading = block(type, this.inlines.phrasing(node.children, source));
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
        cells.push(block('table-cell', cell ? this.inlines.phrasing(cell.children, source) : [emptyText()]));
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
}

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
