import type { Element, ElementContent, Root as HtmlRoot, RootContent } from 'hast';
import type { Nodes, Root } from 'mdast';
import { hastFromHtml, hastToMdast } from '#document/packages';
import { collapseWhitespace, leadingTitleHeading, plainText } from './markdown-source';

/** Page furniture that is not the page's content. */
const DROPPED_ELEMENTS = new Set(['script', 'style', 'nav', 'header', 'footer', 'aside', 'noscript', 'iframe', 'template']);

export interface ConvertedHtmlPage {
  /** The first level-1 heading of the content, else the document's <title>. */
  title: string | undefined;
  /** <meta name="description">. */
  description: string | undefined;
  /** The content as markdown syntax, without its leading title heading. Link URLs are as written. */
  body: Root;
  /** Every <a href> of the whole document, navigation included, as absolute URLs: what a crawl follows. */
  links: URL[];
  /** What relative URLs of the page resolve against (<base href>, else the page's own URL). */
  baseUrl: URL;
}

/**
 * Reads an HTML page: keeps its main content (`main`, else `article`, else `[role=main]`, else
 * `body`) without navigation, headers, footers, asides and scripts, and converts it to markdown
 * syntax.
 */
export function convertHtmlPage(html: string, pageUrl: URL): ConvertedHtmlPage {
  const document = hastFromHtml().fromHtml(html);
  const elements = allElements(document);
  const baseHref = elements.find((element) => element.tagName === 'base' && typeof element.properties.href === 'string');
  const baseUrl = resolveUrl(String(baseHref?.properties.href ?? ''), pageUrl) ?? pageUrl;
  const links = elements
    .filter((element) => element.tagName === 'a' && typeof element.properties.href === 'string')
    .map((element) => resolveUrl(String(element.properties.href), baseUrl))
    .filter((url): url is URL => url !== undefined);

  const content = mainContent(elements) ?? document;
  const body = hastToMdast().toMdast({ type: 'root', children: [withoutFurniture(content)] } as HtmlRoot) as Root;
  const titleHeading = firstDeepTitleHeading(body);
  const leading = leadingTitleHeading(body);
  if (leading !== undefined && leading === titleHeading) body.children.shift();

  const titleElement = elements.find((element) => element.tagName === 'title');
  const description = elements.find(
    (element) => element.tagName === 'meta' && String(element.properties.name ?? '').toLowerCase() === 'description',
  );
  return {
    title: nonEmpty(titleHeading ? plainText(titleHeading) : undefined) ?? nonEmpty(titleElement ? textOf(titleElement) : undefined),
    description: nonEmpty(typeof description?.properties.content === 'string' ? description.properties.content : undefined),
    body,
    links,
    baseUrl,
  };
}

/** Resolves a URL as written in a page; undefined for what is not a URL. */
export function resolveUrl(written: string, base: URL): URL | undefined {
  if (written.trim() === '') return undefined;
  try {
    return new URL(written, base);
  } catch {
    return undefined;
  }
}

function mainContent(elements: readonly Element[]): Element | undefined {
  return (
    elements.find((element) => element.tagName === 'main') ??
    elements.find((element) => element.tagName === 'article') ??
    elements.find((element) => element.properties.role === 'main') ??
    elements.find((element) => element.tagName === 'body')
  );
}

/** The element (or document) with the dropped elements taken out, copied rather than changed. */
function withoutFurniture(node: Element | HtmlRoot): Element {
  const children = (node.children as Array<RootContent | ElementContent>)
    .filter((child) => child.type !== 'doctype' && !(child.type === 'element' && DROPPED_ELEMENTS.has(child.tagName)))
    .map((child) => (child.type === 'element' ? withoutFurniture(child) : child)) as ElementContent[];
  // A whole document (no <body> found) is wrapped in a <div> so the result is one element either way.
  return node.type === 'root' ? { type: 'element', tagName: 'div', properties: {}, children } : { ...node, children };
}

/** Every element in document order. */
function allElements(root: HtmlRoot): Element[] {
  const elements: Element[] = [];
  const visit = (node: HtmlRoot | RootContent | ElementContent): void => {
    if (node.type === 'element') {
      elements.push(node);
      if (node.content) visit(node.content); // <template> keeps its children aside
    }
    if ('children' in node) for (const child of node.children) visit(child);
  };
  visit(root);
  return elements;
}

/** The first level-1 heading, however deep: sites often wrap the title in containers. */
function firstDeepTitleHeading(root: Root): Nodes | undefined {
  const visit = (node: Nodes): Nodes | undefined => {
    if (node.type === 'heading' && node.depth === 1) return node;
    if ('children' in node) {
      for (const child of node.children as Nodes[]) {
        const found = visit(child);
        if (found) return found;
      }
    }
    return undefined;
  };
  return visit(root);
}

function textOf(node: Element | ElementContent): string {
  if (node.type === 'text') return node.value;
  if (node.type === 'element') return node.children.map(textOf).join('');
  return '';
}

function nonEmpty(text: string | undefined): string | undefined {
  const collapsed = text === undefined ? '' : collapseWhitespace(text);
  return collapsed === '' ? undefined : collapsed;
}
