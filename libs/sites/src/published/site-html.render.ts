import type { Element, ElementContent } from 'hast';
import { h } from 'hastscript';
import type { SiteContentRef, SiteDocumentNode } from '../sites.needs';

/**
 * A page body (the content model's JSON document) as semantic HTML, for the published site (docs/api/sites.md,
 * "Docs sites", The published site as HTML): a hast tree that `hast-util-to-html` serializes, so
 * every text and attribute value is escaped by the serializer and nothing from the body becomes
 * markup, a script or a style. The body is untrusted JSON: every member is checked before it is
 * read, nesting and node counts are bounded, and anything unknown degrades to its text.
 *
 * Headings: the page title is the page's h1, so the body's highest heading level is an h2 (and the
 * others follow it, down to h6), each with an
 * id (a slug of its text, unique in the page) and a link to itself; the block's key is an anchor
 * too, so search results (which name sections by key) land on the heading.
 */

/** Where a reference points on the site, and the title of what it names (a content-ref block shows it). */
export interface RefTarget {
  href: string;
  title?: string;
}

export interface RenderLinks {
  /** Where a reference goes on this site; null when it has no place there (its text is kept, unlinked). */
  resolve(ref: SiteContentRef): RefTarget | null;
}

/** Bounds on one body: beyond them the rest is left out. */
export const RENDER_LIMITS = {
  /** Nesting of nodes followed. */
  depth: 32,
  /** Nodes rendered per body. */
  nodes: 100_000,
} as const;

const HINT_STYLES: Readonly<Record<string, string>> = { info: 'Info', warning: 'Warning', danger: 'Danger', success: 'Success' };
const MARK_TAGS: Readonly<Record<string, string>> = {
  bold: 'strong',
  italic: 'em',
  code: 'code',
  strikethrough: 's',
  keyboard: 'kbd',
  superscript: 'sup',
  subscript: 'sub',
  color: 'mark',
};
/** Order marks nest in, outermost first, so the same marks always give the same markup. */
const MARK_ORDER = ['bold', 'italic', 'strikethrough', 'color', 'superscript', 'subscript', 'keyboard', 'code'];
const LANGUAGE = /^[A-Za-z0-9_+#.-]{1,40}$/;

type Node = SiteDocumentNode;

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const stringOf = (value: unknown): string => (typeof value === 'string' ? value : '');
const text = (value: string) => ({ type: 'text' as const, value });

/** At most this many parameters and responses of one operation are shown. */
const MAX_OPERATION_ROWS = 100;

/**
 * What a resolved operation (`data.operation`, from the spec's latest version) shows: its summary
 * and description as text, its parameters as a table, its responses as a list; all as text, never
 * as HTML from the spec.
 */
function operationParts(operation: Record<string, unknown>) {
  const parts = [];
  if (stringOf(operation.summary) !== '')
    parts.push(h('p', { className: ['openapi-summary'] }, [h('strong', {}, [text(stringOf(operation.summary))])]));
  if (stringOf(operation.description) !== '') parts.push(h('p', {}, [text(stringOf(operation.description))]));
  const parameters = (Array.isArray(operation.parameters) ? operation.parameters : []).filter(isRecord).slice(0, MAX_OPERATION_ROWS);
  if (parameters.length > 0) {
    const header = h(
      'tr',
      {},
      ['Parameter', 'In', 'Required', 'Description'].map((title) => h('th', { scope: 'col' }, [text(title)])),
    );
    const rows = parameters.map((parameter) =>
      h('tr', {}, [
        h('td', {}, [h('code', {}, [text(stringOf(parameter.name))])]),
        h('td', {}, [text(stringOf(parameter.in))]),
        h('td', {}, [text(parameter.required === true ? 'yes' : 'no')]),
        h('td', {}, [text(stringOf(parameter.description))]),
      ]),
    );
    parts.push(h('table', {}, [h('thead', {}, [header]), h('tbody', {}, rows)]));
  }
  const responses = isRecord(operation.responses) ? Object.entries(operation.responses).slice(0, MAX_OPERATION_ROWS) : [];
  if (responses.length > 0) {
    parts.push(
      h(
        'dl',
        { className: ['openapi-responses'] },
        responses.flatMap(([status, response]) => [
          h('dt', {}, [h('code', {}, [text(status)])]),
          h('dd', {}, [text(isRecord(response) ? stringOf(response.description) : '')]),
        ]),
      ),
    );
  }
  return parts;
}
const childrenOf = (node: unknown): Node[] =>
  isRecord(node) && Array.isArray(node.nodes)
    ? (node.nodes as unknown[]).filter((child): child is Node => isRecord(child) && typeof child.object === 'string')
    : [];
const dataOf = (node: Node): Record<string, unknown> => (isRecord(node.data) ? node.data : {});

/** A reference read from a body: an object with a string `kind`, else null. */
export function refOf(value: unknown): SiteContentRef | null {
  return isRecord(value) && typeof value.kind === 'string' ? (value as SiteContentRef) : null;
}

/** The plain text of a node: leaves, in order (what an unknown block degrades to). */
export function textOf(node: unknown, depth = 0): string {
  if (!isRecord(node) || depth > RENDER_LIMITS.depth) return '';
  if (node.object === 'text')
    return Array.isArray(node.leaves) ? node.leaves.map((leaf) => (isRecord(leaf) ? stringOf(leaf.text) : '')).join('') : '';
  return childrenOf(node)
    .map((child) => textOf(child, depth + 1))
    .join(child0IsBlock(node) ? '\n' : '');
}

function child0IsBlock(node: Record<string, unknown>): boolean {
  const first = childrenOf(node)[0];
  return first?.object === 'block';
}

/** GitHub-style slug of a heading's text: lower case, letters, digits and hyphens. */
export function slugOf(text: string): string {
  return (
    text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s-]/gu, '')
      .trim()
      .replace(/\s+/g, '-')
      .slice(0, 80) || 'section'
  );
}

/** A body as HTML nodes (the children of the page's `<article>`). */
export function renderDocument(document: unknown, links: RenderLinks): ElementContent[] {
  return new DocumentRenderer(links).render(document);
}

class DocumentRenderer {
  private count = 0;
  private readonly ids = new Set<string>();
  /** What a heading's level adds to become its HTML level: the body's highest heading is an h2. */
  private shift = 1;

  constructor(private readonly links: RenderLinks) {}

  render(document: unknown): ElementContent[] {
    if (!isRecord(document)) return [];
    // Keys are anchors first, so that a heading's slug never takes a key's place.
    this.reserveKeys(document, 0);
    const levels = childrenOf(document).flatMap((block) =>
      block.object === 'block' && typeof block.type === 'string' && /^heading-[1-6]$/.test(block.type)
        ? [Number(block.type.slice(-1))]
        : [],
    );
    this.shift = levels.length > 0 ? 2 - Math.min(...levels) : 1;
    return this.flow(childrenOf(document), 0);
  }

  private reserveKeys(node: Record<string, unknown>, depth: number): void {
    if (depth > RENDER_LIMITS.depth) return;
    for (const child of childrenOf(node)) {
      if (child.object !== 'block') continue;
      if (typeof child.type === 'string' && /^heading-[1-6]$/.test(child.type) && typeof child.key === 'string' && child.key !== '')
        this.ids.add(child.key);
      this.reserveKeys(child as unknown as Record<string, unknown>, depth + 1);
    }
  }

  private admit(depth: number): boolean {
    if (depth > RENDER_LIMITS.depth || this.count >= RENDER_LIMITS.nodes) return false;
    this.count++;
    return true;
  }

  /** Blocks in order; texts and inlines among them (only in unvalidated bodies) as a paragraph. */
  private flow(nodes: readonly Node[], depth: number): ElementContent[] {
    const out: ElementContent[] = [];
    let loose: Node[] = [];
    const flush = () => {
      if (loose.length > 0) out.push(h('p', {}, this.inlines(loose, depth)));
      loose = [];
    };
    for (const node of nodes) {
      if (node.object === 'block') {
        flush();
        out.push(...this.block(node, depth));
      } else loose.push(node);
    }
    flush();
    return out;
  }

  private block(block: Node, depth: number): ElementContent[] {
    if (!this.admit(depth)) return [];
    const data = dataOf(block);
    const children = childrenOf(block);
    const inner = depth + 1;
    switch (block.type) {
      case 'paragraph':
        return [h('p', {}, this.inlines(children, inner))];
      case 'heading-1':
      case 'heading-2':
      case 'heading-3':
      case 'heading-4':
      case 'heading-5':
      case 'heading-6':
        return [this.heading(block, Number(block.type.slice(-1)) + this.shift, inner)];
      case 'list-unordered':
        return [h('ul', {}, this.listItems(children, inner, false))];
      case 'list-ordered': {
        const start = typeof data.start === 'number' && Number.isSafeInteger(data.start) && data.start !== 1 ? { start: data.start } : {};
        return [h('ol', start, this.listItems(children, inner, false))];
      }
      case 'list-tasks':
        return [h('ul', { className: ['tasks'] }, this.listItems(children, inner, true))];
      case 'list-item':
        return [h('ul', {}, this.listItems([block], depth, false))];
      case 'code':
        return this.code(block, children, inner);
      case 'code-line':
        return [h('pre', {}, [h('code', {}, this.plain(block, inner))])];
      case 'hint': {
        const style = Object.hasOwn(HINT_STYLES, stringOf(data.style)) ? stringOf(data.style) : 'info';
        return [
          h('aside', { role: 'note', className: ['hint', `hint-${style}`], ariaLabel: HINT_STYLES[style] }, this.flow(children, inner)),
        ];
      }
      case 'blockquote':
        return [h('blockquote', {}, this.flow(children, inner))];
      case 'divider':
        return [h('hr', {})];
      case 'table':
        return [this.table(children, inner)];
      case 'images':
        return [
          h(
            'div',
            { className: ['images'] },
            children.flatMap((child) => (child.type === 'image' ? this.block(child, inner) : this.flow([child], inner))),
          ),
        ];
      case 'image':
        return [this.image(block, children, inner)];
      case 'file': {
        const ref = refOf(data.ref);
        const target = ref ? this.links.resolve(ref) : null;
        const caption = this.inlines(children, inner);
        const label: ElementContent[] = textOf(block).trim() !== '' ? caption : [{ type: 'text', value: target?.title ?? 'file' }];
        return [h('p', { className: ['file'] }, target ? [h('a', { href: target.href, download: true }, label)] : label)];
      }
      case 'embed': {
        const url = stringOf(data.url);
        const target = url ? this.links.resolve({ kind: 'url', url }) : null;
        const caption = this.inlines(children, inner);
        const label: ElementContent[] = textOf(block).trim() !== '' ? caption : [{ type: 'text', value: url }];
        return [h('p', { className: ['embed'] }, target ? [h('a', { href: target.href, rel: ['noopener', 'noreferrer'] }, label)] : label)];
      }
      case 'content-ref': {
        const ref = refOf(data.ref);
        const target = ref ? this.links.resolve(ref) : null;
        if (!target) return [];
        return [
          h('p', { className: ['content-ref'] }, [h('a', { href: target.href }, [{ type: 'text', value: target.title ?? target.href }])]),
        ];
      }
      case 'math':
        return [h('pre', { className: ['math'] }, [h('code', {}, [{ type: 'text', value: stringOf(data.formula) }])])];
      case 'expandable': {
        const title = stringOf(data.title).trim() || 'Details';
        return [
          h('details', { className: ['expandable'] }, [h('summary', {}, [{ type: 'text', value: title }]), ...this.flow(children, inner)]),
        ];
      }
      case 'tabs':
        // Tabs as disclosure widgets: each tab's title a summary, the first one open; no script needed.
        return [
          h(
            'div',
            { className: ['tabs'] },
            children.flatMap((child, index) => this.tab(child, index === 0, inner)),
          ),
        ];
      case 'tabs-item':
        return this.tab(block, true, depth);
      case 'openapi-operation':
      case 'swagger': {
        const operation = [stringOf(data.method).toUpperCase(), stringOf(data.path)].filter((part) => part !== '').join(' ');
        const resolved = isRecord(data.operation) ? operationParts(data.operation) : [];
        return [
          h('div', { className: ['openapi'] }, [
            ...(operation !== '' ? [h('p', {}, [h('code', {}, [{ type: 'text', value: operation }])])] : []),
            ...resolved,
            ...this.flow(children, inner),
          ]),
        ];
      }
      case 'stepper':
        return [
          h(
            'ol',
            { className: ['stepper'] },
            children.map((child) =>
              h('li', {}, child.type === 'stepper-step' ? this.flow(childrenOf(child), inner + 1) : this.flow([child], inner + 1)),
            ),
          ),
        ];
      case 'columns':
        return [
          h(
            'div',
            { className: ['columns'] },
            children.map((child) =>
              h(
                'div',
                { className: ['column'] },
                child.type === 'column' ? this.flow(childrenOf(child), inner + 1) : this.flow([child], inner + 1),
              ),
            ),
          ),
        ];
      default:
        // A step, a column or a cell out of its parent, unknown types: the blocks inside, or the text.
        if (children.some((child) => child.object === 'block')) return [h('div', {}, this.flow(children, inner))];
        return [h('p', {}, this.plain(block, inner))];
    }
  }

  private heading(block: Node, level: number, depth: number): Element {
    const text = textOf(block).trim();
    let id = slugOf(text);
    for (let suffix = 1; this.ids.has(id); suffix++) id = `${slugOf(text)}-${suffix}`;
    this.ids.add(id);
    const key =
      typeof block.key === 'string' && block.key !== '' && block.key !== id
        ? [h('span', { id: block.key, className: ['key-anchor'] })]
        : [];
    return h(`h${Math.min(Math.max(level, 2), 6)}`, { id }, [
      ...key,
      ...this.inlines(childrenOf(block), depth),
      h('a', { href: `#${id}`, className: ['anchor'], ariaLabel: `Link to ${text || 'this section'}` }, [{ type: 'text', value: '#' }]),
    ]);
  }

  private listItems(items: readonly Node[], depth: number, tasks: boolean): ElementContent[] {
    return items.map((item) => {
      if (!this.admit(depth)) return h('li', {});
      const content = item.type === 'list-item' ? this.flow(childrenOf(item), depth + 1) : this.flow([item], depth + 1);
      if (!tasks) return h('li', {}, content);
      const checked = dataOf(item).checked === true;
      // The state as text, for everyone: a disabled checkbox without a label is an accessibility error.
      const state = h('span', { className: ['task-state'] }, [
        { type: 'text', value: checked ? '☑ ' : '☐ ' },
        h('span', { className: ['visually-hidden'] }, [{ type: 'text', value: checked ? '(done) ' : '(to do) ' }]),
      ]);
      return h('li', { className: [checked ? 'done' : 'todo'] }, [state, ...content]);
    });
  }

  private code(block: Node, lines: readonly Node[], depth: number): ElementContent[] {
    const data = dataOf(block);
    const syntax = stringOf(data.syntax);
    const text = lines.map((line) => (line.object === 'block' ? textOf(line, depth) : textOf(line, depth))).join('\n');
    const code = h('code', LANGUAGE.test(syntax) ? { className: [`language-${syntax}`] } : {}, [{ type: 'text', value: text }]);
    const title = stringOf(data.title).trim();
    if (title === '') return [h('pre', {}, [code])];
    return [h('figure', { className: ['code'] }, [h('figcaption', {}, [{ type: 'text', value: title }]), h('pre', {}, [code])])];
  }

  private table(rows: readonly Node[], depth: number): Element {
    const rowCells = (row: Node) => (row.type === 'table-row' ? childrenOf(row) : [row]);
    const header = rows[0] && (dataOf(rows[0]).header !== false || rows.length === 1) ? rows[0] : null;
    const body = header ? rows.slice(1) : rows;
    const cells = (row: Node, tag: 'th' | 'td') =>
      rowCells(row).map((cell) => {
        const content = childrenOf(cell).some((child) => child.object === 'block')
          ? this.flow(childrenOf(cell), depth + 2)
          : this.inlines(childrenOf(cell), depth + 2);
        return h(tag, tag === 'th' ? { scope: 'col' } : {}, content);
      });
    return h('div', { className: ['table'] }, [
      h('table', {}, [
        ...(header ? [h('thead', {}, [h('tr', {}, cells(header, 'th'))])] : []),
        h(
          'tbody',
          {},
          body.map((row) => h('tr', {}, cells(row, 'td'))),
        ),
      ]),
    ]);
  }

  private image(block: Node, caption: readonly Node[], depth: number): Element {
    const data = dataOf(block);
    const ref = refOf(data.ref);
    const target = ref ? this.links.resolve(ref) : null;
    const captionText = textOf(block).trim();
    const alt = stringOf(data.alt).trim() || captionText;
    const img = target ? [h('img', { src: target.href, alt, loading: 'lazy' })] : [];
    return h('figure', {}, [...img, ...(captionText !== '' ? [h('figcaption', {}, this.inlines(caption, depth))] : [])]);
  }

  private tab(item: Node, open: boolean, depth: number): ElementContent[] {
    if (!this.admit(depth)) return [];
    const title = stringOf(dataOf(item).title).trim() || 'Tab';
    const content = item.type === 'tabs-item' ? this.flow(childrenOf(item), depth + 1) : this.flow([item], depth + 1);
    return [h('details', { className: ['tab'], open }, [h('summary', {}, [{ type: 'text', value: title }]), ...content])];
  }

  /** A block's text only (code lines, unknown blocks). */
  private plain(node: Node, depth: number): ElementContent[] {
    return [{ type: 'text', value: textOf(node, depth) }];
  }

  // ---- inlines ----

  private inlines(nodes: readonly Node[], depth: number): ElementContent[] {
    const out: ElementContent[] = [];
    for (const node of nodes) {
      if (!this.admit(depth)) break;
      if (node.object === 'text') out.push(...this.leaves(node));
      else if (node.object === 'inline') out.push(...this.inline(node, depth + 1));
      else if (node.object === 'block') out.push({ type: 'text', value: textOf(node, depth) });
    }
    return out;
  }

  private leaves(text: Node): ElementContent[] {
    const out: ElementContent[] = [];
    for (const leaf of Array.isArray(text.leaves) ? text.leaves : []) {
      if (!isRecord(leaf) || typeof leaf.text !== 'string' || leaf.text === '') continue;
      const lines = leaf.text.split('\n');
      let content: ElementContent[] = lines.flatMap((line, index) =>
        index === 0 ? [{ type: 'text' as const, value: line }] : [h('br', {}), { type: 'text' as const, value: line }],
      );
      const types = new Set((Array.isArray(leaf.marks) ? leaf.marks : []).map((mark) => (isRecord(mark) ? stringOf(mark.type) : '')));
      for (const type of [...MARK_ORDER].reverse()) if (types.has(type)) content = [h(MARK_TAGS[type], {}, content)];
      out.push(...content);
    }
    return out;
  }

  private inline(inline: Node, depth: number): ElementContent[] {
    const data = dataOf(inline);
    const inner = () => this.inlines(childrenOf(inline), depth);
    switch (inline.type) {
      case 'link': {
        const ref = refOf(data.ref);
        const target = ref ? this.links.resolve(ref) : null;
        if (!target) return inner();
        const external = ref?.kind === 'url' && /^[a-z][a-z0-9+.-]*:/i.test(target.href);
        return [h('a', external ? { href: target.href, rel: ['noopener', 'noreferrer'] } : { href: target.href }, inner())];
      }
      case 'inline-image': {
        const ref = refOf(data.ref);
        const target = ref ? this.links.resolve(ref) : null;
        return target
          ? [h('img', { src: target.href, alt: stringOf(data.alt), className: ['inline'] })]
          : [{ type: 'text', value: stringOf(data.alt) }];
      }
      case 'emoji': {
        const character = emojiCharacter(data.code);
        return character ? [{ type: 'text', value: character }] : inner();
      }
      case 'inline-math':
        return [h('code', { className: ['math'] }, [{ type: 'text', value: stringOf(data.formula) || textOf(inline, depth) }])];
      default:
        // Mentions, annotations and unknown inlines: their text.
        return inner();
    }
  }
}

/** An emoji's character from `data.code`, hexadecimal code points joined by `-`; '' when it is not one. */
export function emojiCharacter(code: unknown): string {
  if (typeof code !== 'string' || !/^[0-9a-fA-F]{1,6}(-[0-9a-fA-F]{1,6}){0,9}$/.test(code)) return '';
  const points = code.split('-').map((hex) => parseInt(hex, 16));
  return points.every((point) => point <= 0x10ffff && !(point >= 0xd800 && point <= 0xdfff)) ? String.fromCodePoint(...points) : '';
}
