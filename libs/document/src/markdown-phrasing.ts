/** Inline content of imported markdown: text with marks from emphasis, code and HTML tags, links, images and inline math. */
import type { Definition, Nodes, PhrasingContent, RootContent } from 'mdast';
import { refOfHref, type LinkResolver } from './content-refs';
import type { ContentRef, Inline, Mark, Text } from './document.model';
import { appendAll, leaf, mark, normalizeInlineContent, normalizeLeaves, normalizeMarks, textOf } from './document.nodes';
import { markOfTag, parseInlineTag } from './markdown-html';
import type { InlineMathNode } from './markdown-math';

/** Phrasing as the walker sees it: mdast's, inline math, and paired HTML tags made into spans. */
export type Phrasing = PhrasingContent | InlineMathNode | MarkSpan | HtmlLink;
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

export interface Source {
  /** The text the mdast positions point into. */
  text: string;
  definitions: Map<string, Definition>;
}

/** Reads phrasing into the document model's inline content, links resolved by `resolveLink`. */
export class InlineReader {
  constructor(private readonly resolveLink: LinkResolver | undefined) {}

  /** Inline content of phrasing: marks from emphasis, strong, delete, code and HTML tags. */
  phrasing(children: readonly Phrasing[], source: Source): Array<Text | Inline> {
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

export function isPhrasing(node: Nodes | RootContent): node is PhrasingContent {
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
