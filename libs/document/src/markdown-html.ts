import type { Element, ElementContent, Root as HtmlRoot } from 'hast';
import { hrefOfRef, refOfHref, type LinkResolver } from './content-refs';
import type { ContentRef, Inline, Mark, MarkType, Text } from './document.model';
import { emptyText, leaf, mark, normalizeInlineContent, normalizeMarks, textOf } from './document.nodes';
import { hastFromHtml } from './packages';

/**
 * The HTML the platform's markdown uses (docs/content.md, "Markdown"): attributes of `{% %}` tags
 * and inline tags, the marks markdown has no syntax for (`<kbd>`, `<sup>`, `<sub>`, `<mark>`), and
 * captioned images, `<figure><img><figcaption>`, whose caption is HTML.
 */

const NAMED_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Decodes the character references attribute values and summaries use. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]{2,8});/g, (reference, body: string) => {
    if (body.startsWith('#')) {
      const point = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return point > 0 && point <= 0x10ffff && !(point >= 0xd800 && point <= 0xdfff) ? String.fromCodePoint(point) : '\ufffd';
    }
    return NAMED_ENTITIES[body] ?? reference;
  });
}

/** Text safe inside an HTML element or a double-quoted attribute. Line breaks are references, so an attribute stays on its line. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}

/** `name="value"`, `name='value'` and `name=value` pairs, values decoded; other text ignored. */
export function parseAttributes(source: string): Record<string, string> {
  const attributes: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const match of source.matchAll(/([a-zA-Z_:][\w:.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/g)) {
    const name = match[1].toLowerCase();
    if (!(name in attributes)) attributes[name] = decodeEntities(match[2] ?? match[3] ?? match[4] ?? '');
  }
  return attributes;
}

export function attributesToString(attributes: ReadonlyArray<[string, string | undefined]>): string {
  return attributes
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => ` ${name}="${escapeHtml(value)}"`)
    .join('');
}

export interface InlineTag {
  name: string;
  closing: boolean;
  attributes: Record<string, string>;
}

/** An inline HTML node of mdast that is one tag (`<kbd>`, `</kbd>`, `<br/>`), else null (comments, several tags). */
export function parseInlineTag(html: string): InlineTag | null {
  const match = /^<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s[^<>]*)?)\/?>$/.exec(html);
  if (!match) return null;
  return { name: match[2].toLowerCase(), closing: match[1] === '/', attributes: match[1] === '/' ? {} : parseAttributes(match[3]) };
}

// Colors written into style attributes: names, hex, rgb()/hsl() and var(); nothing that closes the attribute.
const SAFE_COLOR = /^[#a-zA-Z0-9(),.%\s-]{1,64}$/;

/** The color mark of a `<mark style="color:red;background-color:...">`. */
export function colorMarkOfStyle(style: string | undefined): Mark {
  const data: Record<string, string> = {};
  for (const declaration of (style ?? '').split(';')) {
    const separator = declaration.indexOf(':');
    if (separator < 0) continue;
    const property = declaration.slice(0, separator).trim().toLowerCase();
    const value = declaration.slice(separator + 1).trim();
    if (!SAFE_COLOR.test(value)) continue;
    if (property === 'color') data.color = value;
    else if (property === 'background-color' || property === 'background') data.background = value;
  }
  return mark('color', data);
}

function colorStyle(value: Mark): string {
  const color = typeof value.data?.color === 'string' && SAFE_COLOR.test(value.data.color) ? value.data.color : undefined;
  const background =
    typeof value.data?.background === 'string' && SAFE_COLOR.test(value.data.background) ? value.data.background : undefined;
  return (color !== undefined ? `color:${color};` : '') + (background !== undefined ? `background-color:${background};` : '');
}

/** Marks markdown writes as HTML tags, and the tag of each. */
export const HTML_MARK_TAGS: Readonly<Partial<Record<MarkType, string>>> = {
  color: 'mark',
  keyboard: 'kbd',
  superscript: 'sup',
  subscript: 'sub',
};

/** The mark an inline tag name stands for, in markdown and in captions; null for other tags. */
export function markOfTag(tag: InlineTag): Mark | null {
  switch (tag.name) {
    case 'kbd':
      return mark('keyboard');
    case 'sup':
      return mark('superscript');
    case 'sub':
      return mark('subscript');
    case 'mark':
      return colorMarkOfStyle(tag.attributes.style);
    case 'strong':
    case 'b':
      return mark('bold');
    case 'em':
    case 'i':
      return mark('italic');
    case 's':
    case 'del':
    case 'strike':
      return mark('strikethrough');
    case 'code':
      return mark('code');
    default:
      return null;
  }
}

const CAPTION_TAGS: Readonly<Record<MarkType, string>> = {
  bold: 'strong',
  italic: 'em',
  code: 'code',
  strikethrough: 's',
  keyboard: 'kbd',
  superscript: 'sup',
  subscript: 'sub',
  color: 'mark',
};

export function openTag(value: Mark): string {
  const name = CAPTION_TAGS[value.type];
  if (value.type !== 'color') return `<${name}>`;
  const style = colorStyle(value);
  return style ? `<mark style="${style}">` : '<mark>';
}

export function closeTag(value: Mark): string {
  return `</${CAPTION_TAGS[value.type]}>`;
}

// ---- captions: inline content as HTML, inside <figcaption> -------------------------------------

/** A caption as the HTML inside `<figcaption><p>...</p></figcaption>`: each leaf wrapped in its marks' tags. */
export function captionHtml(nodes: ReadonlyArray<Text | Inline>): string {
  const leaves = (text: Text) =>
    text.leaves.map((part) => {
      const marks = normalizeMarks(part.marks);
      const body = escapeHtml(part.text).replace(/&#10;/g, '<br>');
      return marks.map(openTag).join('') + body + [...marks].reverse().map(closeTag).join('');
    });
  return nodes
    .map((node) => {
      if (node.object === 'text') return leaves(node).join('');
      const ref = node.data?.ref as ContentRef | undefined;
      if (node.type === 'inline-image' && ref)
        return `<img src="${escapeHtml(hrefOfRef(ref))}" alt="${escapeHtml(String(node.data?.alt ?? ''))}">`;
      const inner = (node.nodes ?? []).map((text) => leaves(text).join('')).join('');
      if ((node.type === 'link' || node.type === 'mention') && ref) return `<a href="${escapeHtml(hrefOfRef(ref))}">${inner}</a>`;
      return inner;
    })
    .join('');
}

/** Caption HTML read back: the tags `captionHtml` writes, `<br>`, `<p>` breaks; other tags keep their text. */
export function captionOfHast(children: readonly ElementContent[], resolveLink: LinkResolver | undefined): Array<Text | Inline> {
  const out: Array<Text | Inline> = [];
  const walk = (nodes: readonly ElementContent[], marks: Mark[], into: Array<Text | Inline>, inLink: boolean): void => {
    for (const node of nodes) {
      if (node.type === 'text') {
        if (node.value !== '') into.push(textOf([leaf(node.value.replace(/\r\n?|\n/g, ' '), normalizeMarks(marks))]));
        continue;
      }
      if (node.type !== 'element') continue;
      const name = node.tagName;
      if (name === 'br') {
        into.push(textOf([leaf('\n', normalizeMarks(marks))]));
        continue;
      }
      if (name === 'p' && into.length > 0) into.push(textOf([leaf('\n', normalizeMarks(marks))]));
      if (name === 'img' && !inLink) {
        const ref = refOfHref(stringProperty(node, 'src'), resolveLink);
        if (ref) into.push({ object: 'inline', type: 'inline-image', isVoid: true, data: { ref, alt: stringProperty(node, 'alt') } });
        continue;
      }
      if (name === 'a' && !inLink) {
        const ref = refOfHref(stringProperty(node, 'href'), resolveLink);
        if (ref) {
          const inner: Array<Text | Inline> = [];
          walk(node.children, [], inner, true);
          const text = normalizeInlineContent(inner.filter((child): child is Text => child.object === 'text'));
          into.push({ object: 'inline', type: ref.kind === 'user' ? 'mention' : 'link', data: { ref }, nodes: text as Text[] });
          continue;
        }
      }
      const markOfElement = markOfTag({ name, closing: false, attributes: { style: stringProperty(node, 'style') } });
      walk(node.children, markOfElement ? [...marks, markOfElement] : marks, into, inLink);
    }
  };
  walk(children, [], out, false);
  return normalizeInlineContent(out);
}

function stringProperty(element: Element, name: string): string {
  const value = element.properties[name];
  return typeof value === 'string' ? value : Array.isArray(value) ? value.join(' ') : '';
}

// ---- figures ------------------------------------------------------------------------------------

export interface Figure {
  src: string;
  alt: string;
  caption: Array<Text | Inline>;
}

/** Raw HTML beyond this many tags is not parsed as structure (hast's builders recurse per level). */
export const MAX_HTML_TAGS = 1000;

export function htmlTagCount(html: string): number {
  let count = 0;
  for (let index = html.indexOf('<'); index >= 0 && count <= MAX_HTML_TAGS; index = html.indexOf('<', index + 1)) count++;
  return count;
}

/**
 * The images of an HTML block made only of `<figure>`s and `<img>`s (with whitespace between),
 * else null.
 */
export function figuresOfHtml(html: string, resolveLink: LinkResolver | undefined): Figure[] | null {
  if (!/^\s*<(figure|img)[\s>]/i.test(html) || htmlTagCount(html) > MAX_HTML_TAGS) return null;
  const root: HtmlRoot = hastFromHtml().fromHtml(html, { fragment: true });
  const figures: Figure[] = [];
  for (const node of root.children) {
    if (node.type === 'text' && node.value.trim() === '') continue;
    if (node.type === 'comment') continue;
    if (node.type !== 'element') return null;
    if (node.tagName === 'img') {
      figures.push({ src: stringProperty(node, 'src'), alt: stringProperty(node, 'alt'), caption: [emptyText()] });
      continue;
    }
    if (node.tagName !== 'figure') return null;
    const image = findElement(node, 'img');
    if (!image) return null;
    const caption = findElement(node, 'figcaption');
    figures.push({
      src: stringProperty(image, 'src'),
      alt: stringProperty(image, 'alt'),
      caption: caption ? captionOfHast(caption.children, resolveLink) : [emptyText()],
    });
  }
  return figures.length > 0 ? figures : null;
}

function findElement(root: Element, tagName: string): Element | undefined {
  const stack: ElementContent[] = [...root.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type !== 'element') continue;
    if (node.tagName === tagName) return node;
    for (let index = node.children.length - 1; index >= 0; index--) stack.push(node.children[index]);
  }
  return undefined;
}
