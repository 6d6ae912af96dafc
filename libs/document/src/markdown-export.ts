import type {
  BlockContent as MdastBlockContent,
  Heading,
  Html,
  ListItem,
  Nodes,
  Paragraph,
  PhrasingContent,
  RootContent,
  TableCell,
  TableRow,
} from 'mdast';
import type { Handle, Join, Options as ToMarkdownOptions } from 'mdast-util-to-markdown';
import { hrefOfRef } from './content-refs';
import type { Block, ContentRef, DocumentNode, Inline, Mark, MarkType, Text } from './document.model';
import { appendAll, emojiCharacter, inlineContentText, markIdentity, normalizeMarks } from './document.nodes';
import { BLOCK_CONTENT } from './document.schema';
import { attributesToString, captionHtml, closeTag, escapeHtml, HTML_MARK_TAGS, openTag } from './markdown-html';
import { inlineMathToMarkdown, type InlineMathNode } from './markdown-math';
import { mdastGfm, mdastToMarkdown, yaml } from './packages';

/**
 * The JSON document model to markdown (docs/content.md, "Markdown"), the inverse of
 * `markdownToDocument`: ordinary blocks become mdast and are written by mdast-util-to-markdown with
 * GFM, the platform's blocks become their `{% %}`, `<details>`, `$$` and `<figure>` lines (HTML
 * nodes of the same tree, so they indent inside list items like everything else).
 */

export interface DocumentToMarkdownOptions {
  /** Written as a leading `# title`, which `markdownToDocument` reads back as the title. */
  title?: string | null;
  /** Written as YAML front matter (`description:`, ...). */
  frontMatter?: Record<string, unknown> | null;
}

export function documentToMarkdown(document: DocumentNode, options: DocumentToMarkdownOptions = {}): string {
  const writer = new MarkdownWriter();
  const children: RootContent[] = [];
  const title = options.title?.replace(/\s+/g, ' ').trim();
  if (title) children.push({ type: 'heading', depth: 1, children: [{ type: 'text', value: title }] });
  const body = writer.flow(document.nodes);
  // Without a title line, a body that opens with a level-1 heading writes it setext (underlined):
  // only a leading `# heading` is read back as the page title.
  const first = body[0];
  // (An empty heading cannot be underlined; it is not read as the title either.)
  if (!title && first?.type === 'heading' && first.depth === 1 && inlineContentText(document.nodes[0]?.nodes ?? []).trim() !== '')
    writer.setextHeadings.add(first);
  appendAll(children, body);
  let markdown = children.length > 0 ? mdastToMarkdown().toMarkdown({ type: 'root', children }, writer.options()) : '';
  const frontMatter = options.frontMatter && Object.keys(options.frontMatter).length > 0 ? options.frontMatter : null;
  if (frontMatter) markdown = `---\n${yaml().stringify(frontMatter)}---\n${markdown === '' ? '' : '\n'}${markdown}`;
  return markdown;
}

/** Marks written as wrappers (mdast nodes), the rest are HTML tags; `code` is the leaf itself. */
const WRAPPERS: Partial<Record<MarkType, 'strong' | 'emphasis' | 'delete'>> = {
  bold: 'strong',
  italic: 'emphasis',
  strikethrough: 'delete',
};
/** Order marks open in: HTML tags outside, emphasis inside (any order reads back the same). */
const OPENING_ORDER: readonly MarkType[] = ['color', 'keyboard', 'superscript', 'subscript', 'strikethrough', 'bold', 'italic'];

type Phrasing = PhrasingContent | InlineMathNode;

class MarkdownWriter {
  /** HTML nodes that are `{% %}` tag lines: no blank line around them, as the platform writes them. */
  readonly tagNodes = new WeakSet<Nodes>();
  readonly setextHeadings = new WeakSet<Heading>();

  options(): ToMarkdownOptions {
    const tagNodes = this.tagNodes;
    const setextHeadings = this.setextHeadings;
    const { defaultHandlers } = mdastToMarkdown();
    const heading: Handle = (node: Heading, parent, state, info) => {
      if (!setextHeadings.has(node)) return defaultHandlers.heading(node, parent, state, info);
      const setext = state.options.setext;
      state.options.setext = true;
      try {
        return defaultHandlers.heading(node, parent, state, info);
      } finally {
        state.options.setext = setext;
      }
    };
    const tight: Join = (left, right) => (tagNodes.has(left) || tagNodes.has(right) ? 0 : undefined);
    return {
      bullet: '-',
      // `---` opening a page would read as front matter.
      rule: '*',
      fences: true,
      // `[url](url)`, never `<url>`: an autolink must also be valid CommonMark, which GFM's literal links need not be.
      resourceLink: true,
      extensions: [mdastGfm().gfmToMarkdown(), inlineMathToMarkdown],
      handlers: { heading },
      join: [tight],
      // `{%` would start a platform tag: `{\%` reads back as the same text.
      unsafe: [
        { character: '%', before: '\\{' },
        // `<` before anything may open an autolink (`<%@a>` is an email address), and
        // mdast-util-to-markdown escapes it only before letters: escape every one in text.
        { character: '<', inConstruct: ['phrasing', 'label'] },
      ],
    };
  }

  private tag(value: string): Html {
    const node: Html = { type: 'html', value };
    this.tagNodes.add(node);
    return node;
  }

  flow(blocks: readonly (Block | Inline | Text)[]): RootContent[] {
    return blocks.flatMap((child) => (child.object === 'block' ? this.block(child) : []));
  }

  private block(block: Block): RootContent[] {
    const data = block.data ?? {};
    const children = block.nodes ?? [];
    const inline = () => children.filter((child): child is Text | Inline => child.object !== 'block');
    const blocks = () => children.filter((child): child is Block => child.object === 'block');
    switch (block.type) {
      case 'paragraph':
        return [{ type: 'paragraph', children: phrasingOf(inline()) as PhrasingContent[] }];
      case 'heading-1':
      case 'heading-2':
      case 'heading-3':
        return [{ type: 'heading', depth: Number(block.type.slice(-1)) as 1 | 2 | 3, children: phrasingOf(inline()) as PhrasingContent[] }];
      case 'list-unordered':
      case 'list-ordered':
      case 'list-tasks': {
        const items: ListItem[] = blocks().map((item) => ({
          type: 'listItem',
          spread: false,
          checked: block.type === 'list-tasks' ? item.data?.checked === true : null,
          children: this.flow(item.nodes ?? []) as MdastBlockContent[],
        }));
        // Items of several blocks are separated by blank lines, so a nested list cannot swallow what follows.
        const spread = items.some((item) => item.children.length > 1);
        for (const item of items) item.spread = spread;
        const start = typeof data.start === 'number' && Number.isInteger(data.start) && data.start >= 0 ? data.start : 1;
        return [{ type: 'list', ordered: block.type === 'list-ordered', start, spread, children: items }];
      }
      case 'code': {
        const value = blocks()
          .map((line) => inlineContentText(line.nodes ?? []))
          .join('\n');
        const syntax = typeof data.syntax === 'string' && /^[^\s`]+$/.test(data.syntax) ? data.syntax : null;
        const title = typeof data.title === 'string' ? data.title : undefined;
        if (title !== undefined && syntax === null) {
          // A fence's info string starts with its language: a title alone goes on GitBook's code tag.
          return [
            this.tag(`{% code${attributesToString([['title', title]])} %}`),
            { type: 'code', lang: null, meta: null, value },
            this.tag('{% endcode %}'),
          ];
        }
        return [{ type: 'code', lang: syntax, meta: title !== undefined ? `title="${escapeHtml(title)}"` : null, value }];
      }
      case 'hint':
        return this.wrapped(`hint${attributesToString([['style', stringOr(data.style, 'info')]])}`, 'hint', blocks());
      case 'blockquote':
        return [{ type: 'blockquote', children: this.flow(children) as MdastBlockContent[] }];
      case 'divider':
        return [{ type: 'thematicBreak' }];
      case 'table':
        return [this.table(block)];
      case 'images':
        return this.images(blocks());
      case 'image':
        return this.images([block]);
      case 'file': {
        const ref = data.ref as ContentRef | undefined;
        if (!ref) return this.captionParagraph(inline());
        return [
          this.tag(`{% file${attributesToString([['src', hrefOfRef(ref)]])} %}`),
          ...this.captionParagraph(inline()),
          this.tag('{% endfile %}'),
        ];
      }
      case 'embed': {
        const open = this.tag(`{% embed${attributesToString([['url', stringOr(data.url, '')]])} %}`);
        const caption = this.captionParagraph(inline());
        return caption.length === 0 ? [open] : [open, ...caption, this.tag('{% endembed %}')];
      }
      case 'expandable':
        return [
          { type: 'html', value: `<details>\n<summary>${escapeHtml(stringOr(data.title, ''))}</summary>` },
          ...this.flow(children),
          { type: 'html', value: '</details>' },
        ];
      case 'tabs':
        return this.itemized('tabs', 'tab', blocks(), (item) => [['title', stringOr(item.data?.title, '')]]);
      case 'stepper':
        return this.itemized('stepper', 'step', blocks(), () => []);
      case 'columns':
        return this.itemized('columns', 'column', blocks(), () => []);
      case 'math':
        return [{ type: 'html', value: `$$\n${stringOr(data.formula, '')}\n$$` }];
      case 'content-ref': {
        const ref = data.ref as ContentRef | undefined;
        if (!ref) return [];
        const href = hrefOfRef(ref);
        const link = mdastToMarkdown()
          .toMarkdown(
            { type: 'paragraph', children: [{ type: 'link', url: href, children: [{ type: 'text', value: href }] }] },
            { resourceLink: true },
          )
          .trimEnd();
        return [this.tag(`{% content-ref${attributesToString([['url', href]])} %}\n${link}\n{% endcontent-ref %}`)];
      }
      case 'swagger':
        return this.wrapped(
          `swagger${attributesToString([
            ['src', optionalString(data.src)],
            ['path', optionalString(data.path)],
            ['method', optionalString(data.method)],
          ])}`,
          'swagger',
          blocks(),
        );
      case 'openapi-operation': {
        const ref = data.ref as ContentRef | undefined;
        const spec = ref?.kind === 'openapi' ? ref.spec : undefined;
        return [
          this.tag(
            `{% openapi-operation${attributesToString([
              ['spec', spec],
              ['path', optionalString(data.path)],
              ['method', optionalString(data.method)],
            ])} %}`,
          ),
        ];
      }
      // Structural blocks out of their parent (only in documents that skipped validation): their content.
      case 'code-line':
      case 'table-cell':
        return [{ type: 'paragraph', children: phrasingOf(inline()) as PhrasingContent[] }];
      default:
        return this.flow(children);
    }
  }

  private wrapped(open: string, name: string, children: readonly Block[]): RootContent[] {
    return [this.tag(`{% ${open} %}`), ...this.flow(children), this.tag(`{% end${name} %}`)];
  }

  private itemized(
    name: string,
    itemName: string,
    items: readonly Block[],
    attributes: (item: Block) => Array<[string, string | undefined]>,
  ): RootContent[] {
    return [
      this.tag(`{% ${name} %}`),
      ...items.flatMap((item) =>
        this.wrapped(
          `${itemName}${attributesToString(attributes(item))}`,
          itemName,
          (item.nodes ?? []).filter((child): child is Block => child.object === 'block'),
        ),
      ),
      this.tag(`{% end${name} %}`),
    ];
  }

  private captionParagraph(caption: ReadonlyArray<Text | Inline>): Paragraph[] {
    return inlineContentText(caption) === '' && !caption.some((node) => node.object === 'inline')
      ? []
      : [{ type: 'paragraph', children: phrasingOf(caption) as PhrasingContent[] }];
  }

  /**
   * Images without captions: `![alt](src)` in one paragraph (read back as one images block);
   * with a caption anywhere: `<figure>`s, one per line, in one HTML block.
   */
  private images(images: readonly Block[]): RootContent[] {
    const figures = images.flatMap((image) => {
      const ref = image.data?.ref as ContentRef | undefined;
      if (!ref) return [];
      const caption = (image.nodes ?? []).filter((child): child is Text | Inline => child.object !== 'block');
      return [{ src: hrefOfRef(ref), alt: stringOr(image.data?.alt, ''), caption }];
    });
    if (figures.length === 0) return [];
    const captioned = figures.some(({ caption }) => inlineContentText(caption) !== '' || caption.some((node) => node.object === 'inline'));
    if (!captioned) {
      const children: PhrasingContent[] = [];
      for (const figure of figures) {
        if (children.length > 0) children.push({ type: 'text', value: ' ' });
        children.push({ type: 'image', url: figure.src, alt: figure.alt });
      }
      return [{ type: 'paragraph', children }];
    }
    const html = figures
      .map(({ src, alt, caption }) => {
        const text = captionHtml(caption);
        const figcaption = text === '' ? '' : `<figcaption><p>${text}</p></figcaption>`;
        return `<figure><img src="${escapeHtml(src)}" alt="${escapeHtml(alt)}">${figcaption}</figure>`;
      })
      .join('\n');
    return [{ type: 'html', value: html }];
  }

  private table(block: Block): RootContent {
    const rows = (block.nodes ?? []).filter((child): child is Block => child.object === 'block');
    const width = rows.reduce((widest, row) => Math.max(widest, (row.nodes ?? []).length), 1);
    const align = Array.isArray(block.data?.align) ? (block.data.align as unknown[]) : [];
    return {
      type: 'table',
      align: Array.from({ length: width }, (_, index) => {
        const value = align[index];
        return value === 'left' || value === 'center' || value === 'right' ? value : null;
      }),
      children: rows.map((row): TableRow => ({
        type: 'tableRow',
        children: (row.nodes ?? [])
          .filter((cell): cell is Block => cell.object === 'block')
          .map((cell): TableCell => ({
            type: 'tableCell',
            children: withEdgeWhitespaceKept(phrasingOf((cell.nodes ?? []) as Array<Text | Inline>)) as PhrasingContent[],
          })),
      })),
    };
  }
}

/**
 * A GFM table cell is trimmed when read, and the table writer (unlike the paragraph writer)
 * does not protect spaces at a cell's edges: they are written as character references.
 */
function withEdgeWhitespaceKept(children: Phrasing[]): Phrasing[] {
  const references = (whitespace: string): Phrasing => ({
    type: 'html',
    value: [...whitespace].map((character) => `&#x${character.charCodeAt(0).toString(16)};`).join(''),
  });
  const kept = [...children];
  const first = kept[0];
  const leading = first?.type === 'text' ? /^[ \t]+/.exec(first.value)?.[0] : undefined;
  if (first?.type === 'text' && leading)
    kept.splice(
      0,
      1,
      references(leading),
      ...(first.value.length > leading.length ? [{ type: 'text' as const, value: first.value.slice(leading.length) }] : []),
    );
  const last = kept[kept.length - 1];
  const trailing = last?.type === 'text' ? /[ \t]+$/.exec(last.value)?.[0] : undefined;
  if (last?.type === 'text' && trailing)
    kept.splice(
      kept.length - 1,
      1,
      ...(last.value.length > trailing.length ? [{ type: 'text' as const, value: last.value.slice(0, -trailing.length) }] : []),
      references(trailing),
    );
  return kept;
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

// ---- inline content ------------------------------------------------------------------------------

/**
 * Text cut where GFM would find a literal link (`www.`, `http://`, an email's `@`): GFM's reader
 * links them in the text whatever the escapes, so an empty comment between two text nodes (read
 * as nothing) keeps plain text plain.
 */
function withoutLiteralAutolinks(text: string): string[] {
  const cuts = new Set<number>();
  for (const match of text.matchAll(/www(?=\.)|https?(?=:\/\/)|[-.\w+](?=@)/gi)) cuts.add(match.index + match[0].length);
  if (cuts.size === 0) return [text];
  const parts: string[] = [];
  let start = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    parts.push(text.slice(start, cut));
    start = cut;
  }
  parts.push(text.slice(start));
  return parts;
}

/**
 * Inline content as mdast phrasing. Marks open and close with a stack: a mark stays open while the
 * next leaves keep it, so `**a *b* c**` rather than `**a** ***b*** **c**`; HTML marks are tag pairs
 * among the same siblings, which is how the reader pairs them again.
 */
export function phrasingOf(nodes: ReadonlyArray<Text | Inline>): Phrasing[] {
  const writer = new PhrasingWriter();
  for (const node of nodes) {
    if (node.object === 'text') {
      for (const part of node.leaves) if (part.text !== '') writer.leaf(part.text, normalizeMarks(part.marks));
      continue;
    }
    writer.inline(node);
  }
  return writer.finish();
}

class PhrasingWriter {
  private readonly root: Phrasing[] = [];
  private readonly open: Array<{ mark: Mark; children: Phrasing[] }> = [];

  private current(): Phrasing[] {
    return this.open.length > 0 ? this.open[this.open.length - 1].children : this.root;
  }

  /** Keeps the open marks the content still has (outermost first), closes the others, opens the missing ones. */
  private sync(marks: readonly Mark[]): void {
    const wanted = marks.filter((value) => value.type !== 'code');
    const identities = new Set(wanted.map(markIdentity));
    let keep = 0;
    while (keep < this.open.length && identities.has(markIdentity(this.open[keep].mark))) keep++;
    while (this.open.length > keep) {
      const closed = this.open.pop()!;
      if (!WRAPPERS[closed.mark.type]) this.current().push({ type: 'html', value: closeTag(closed.mark) });
    }
    const opened = new Set(this.open.map((entry) => markIdentity(entry.mark)));
    const missing = wanted
      .filter((value) => !opened.has(markIdentity(value)))
      .sort((a, b) => OPENING_ORDER.indexOf(a.type) - OPENING_ORDER.indexOf(b.type));
    for (const value of missing) {
      const wrapper = WRAPPERS[value.type];
      if (wrapper) {
        const node = { type: wrapper, children: [] as PhrasingContent[] };
        this.current().push(node as PhrasingContent);
        this.open.push({ mark: value, children: node.children as Phrasing[] });
      } else if (HTML_MARK_TAGS[value.type]) {
        this.current().push({ type: 'html', value: openTag(value) });
        this.open.push({ mark: value, children: this.current() });
      }
    }
  }

  leaf(text: string, marks: readonly Mark[]): void {
    this.sync(marks);
    const code = marks.some((value) => value.type === 'code');
    text.split(/\r\n|\r|\n/).forEach((line, index) => {
      // `<br>` rather than a hard break: it works in headings and table cells too, and at either
      // end of a paragraph, where a trailing backslash or spaces would be lost.
      if (index > 0) this.current().push({ type: 'html', value: '<br>' });
      if (line === '') return;
      if (code) this.current().push({ type: 'inlineCode', value: line });
      else
        for (const [index, part] of withoutLiteralAutolinks(line).entries()) {
          if (index > 0) this.current().push({ type: 'html', value: '<!---->' });
          this.current().push({ type: 'text', value: part });
        }
    });
  }

  inline(node: Inline): void {
    const data = node.data ?? {};
    const ref = data.ref as ContentRef | undefined;
    switch (node.type) {
      case 'link':
      case 'mention': {
        const leaves = (node.nodes ?? []).flatMap((text) => text.leaves).filter((part) => part.text !== '');
        if (!ref) {
          for (const part of leaves) this.leaf(part.text, normalizeMarks(part.marks));
          return;
        }
        // Marks on the whole link text are written around the link, the rest inside it.
        const shared =
          leaves.length === 0
            ? []
            : normalizeMarks(leaves[0].marks).filter(
                (value) =>
                  value.type !== 'code' && leaves.every((part) => part.marks.some((other) => markIdentity(other) === markIdentity(value))),
              );
        const sharedIdentities = new Set(shared.map(markIdentity));
        this.sync(shared);
        const inner = new PhrasingWriter();
        for (const part of leaves)
          inner.leaf(
            part.text,
            normalizeMarks(part.marks).filter((value) => !sharedIdentities.has(markIdentity(value))),
          );
        this.current().push({ type: 'link', url: hrefOfRef(ref), children: inner.finish() as PhrasingContent[] });
        return;
      }
      case 'inline-image':
        if (ref) this.current().push({ type: 'image', url: hrefOfRef(ref), alt: stringOr(data.alt, '') });
        return;
      case 'inline-math': {
        // `$$a$$$$b$$` would be one formula: an empty comment (read as nothing) separates two.
        const siblings = this.current();
        if (siblings[siblings.length - 1]?.type === 'inlineMath') siblings.push({ type: 'html', value: '<!---->' });
        siblings.push({ type: 'inlineMath', value: stringOr(data.formula, '') });
        return;
      }
      case 'emoji': {
        const character = emojiCharacter(data);
        if (character !== '') this.current().push({ type: 'text', value: character });
        return;
      }
      default:
        for (const text of node.nodes ?? [])
          for (const part of text.leaves) if (part.text !== '') this.leaf(part.text, normalizeMarks(part.marks));
    }
  }

  finish(): Phrasing[] {
    this.sync([]);
    return this.root;
  }
}
