import type { Heading, Nodes, Root } from 'mdast';
import { PART_MIN_CHARS } from '#document/markdown-guards';
import { parseMarkdownParts } from '#document/markdown-import';
import { mdastFromMarkdown, mdastGfm, mdastToMarkdown, micromarkGfm, yaml } from '#document/packages';

/** The front matter fields an import uses. */
export interface FrontMatter {
  title?: string;
  description?: string;
}

export interface MarkdownWithFrontMatter {
  frontMatter: FrontMatter;
  /** The text after the front matter block. */
  body: string;
}

// A YAML block fenced by `---` lines at the very start of the file (closing `...` is YAML's own end marker).
const FRONT_MATTER = /^---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;

/** Splits off a leading YAML front matter block; YAML that does not parse counts as no fields. */
export function splitFrontMatter(text: string): MarkdownWithFrontMatter {
  const match = FRONT_MATTER.exec(text);
  if (!match) return { frontMatter: {}, body: text };
  let data: unknown;
  try {
    data = yaml().parse(match[1] ?? '');
  } catch {
    data = undefined;
  }
  const fields = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
  return {
    frontMatter: { title: nonEmptyString(fields.title), description: nonEmptyString(fields.description) },
    body: text.slice(match[0].length),
  };
}

/**
 * Markdown as one mdast tree, read in parts where the text is long (parseMarkdownParts: linear
 * where micromark alone is not); positions count from the start of each part, the first part's
 * from the start of the text.
 */
export function parseMarkdown(text: string): Root {
  const parts = parseMarkdownParts(text, PART_MIN_CHARS, (source, extensions) =>
    mdastFromMarkdown().fromMarkdown(source, {
      extensions: [micromarkGfm().gfm(), ...extensions],
      mdastExtensions: [mdastGfm().gfmFromMarkdown()],
    }),
  );
  return parts.length === 1 ? parts[0].root : { type: 'root', children: parts.flatMap((part) => part.root.children) };
}

export function serializeMarkdown(root: Root): string {
  if (root.children.length === 0) return '';
  return mdastToMarkdown().toMarkdown(root, { extensions: [mdastGfm().gfmToMarkdown()], bullet: '-', rule: '-' });
}

/** The text of a node, without markup. */
export function plainText(node: Nodes): string {
  if ('value' in node && typeof node.value === 'string' && node.type !== 'html') return node.value;
  if (node.type === 'image') return node.alt ?? '';
  if ('children' in node) return (node.children as Nodes[]).map(plainText).join('');
  return '';
}

/** The first level-1 heading among the top-level blocks. */
export function firstTitleHeading(root: Root): Heading | undefined {
  return root.children.find((node): node is Heading => node.type === 'heading' && node.depth === 1);
}

/** The heading that opens the document, when it is level 1. */
export function leadingTitleHeading(root: Root): Heading | undefined {
  const first = root.children[0];
  return first?.type === 'heading' && first.depth === 1 ? first : undefined;
}

export interface TitledMarkdown {
  title: string;
  /** Whether the document's leading level-1 heading is the title (and so is left out of the body). */
  leadingHeadingIsTitle: boolean;
}

/**
 * A page's title: the one given (a table of contents entry), else front matter `title:`, else the
 * first `# heading`, else the fallback (a file name). The leading heading is dropped from the body
 * only when it says the title, so no text is lost.
 */
export function titleOf(root: Root, frontMatter: FrontMatter, fallback: string, given?: string): TitledMarkdown {
  const firstHeading = firstTitleHeading(root);
  const headingTitle = firstHeading ? collapseWhitespace(plainText(firstHeading)) : undefined;
  const title = given || frontMatter.title || headingTitle || fallback;
  const leading = leadingTitleHeading(root);
  return { title, leadingHeadingIsTitle: leading !== undefined && collapseWhitespace(plainText(leading)) === title };
}

// `src="…"` and `href="…"` (or single-quoted) attributes in raw HTML, e.g. GitBook's <figure><img src=…>.
const HTML_URL_ATTRIBUTE = /(\s(?:src|href)\s*=\s*)(?:"([^"]*)"|'([^']*)')/gi;

/**
 * Every URL of links, images, link definitions and src/href attributes of raw HTML in the tree,
 * rewritten where `rewrite` answers one.
 */
export function rewriteUrls(root: Root, rewrite: (url: string) => string | undefined): void {
  const visit = (node: Nodes): void => {
    if (node.type === 'link' || node.type === 'definition' || node.type === 'image') node.url = rewrite(node.url) ?? node.url;
    else if (node.type === 'html') node.value = rewriteHtmlUrls(node.value, rewrite);
    if ('children' in node) for (const child of node.children as Nodes[]) visit(child);
  };
  visit(root);
}

function rewriteHtmlUrls(html: string, rewrite: (url: string) => string | undefined): string {
  return html.replace(HTML_URL_ATTRIBUTE, (attribute, prefix: string, doubleQuoted?: string, singleQuoted?: string) => {
    const written = decodeHtmlEntities(doubleQuoted ?? singleQuoted ?? '');
    const rewritten = rewrite(written);
    return rewritten === undefined ? attribute : `${prefix}"${rewritten.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`;
  });
}

function decodeHtmlEntities(text: string): string {
  return text
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");
}

export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A file name without folders and extension, decoded, as a last-resort title. */
export function titleFromFileName(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const withoutExtension = name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : name;
  try {
    return decodeURIComponent(withoutExtension);
  } catch {
    return withoutExtension;
  }
}

function nonEmptyString(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const text = String(value).trim();
  return text === '' ? undefined : text;
}
