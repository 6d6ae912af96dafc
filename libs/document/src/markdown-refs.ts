import { posix } from 'node:path';
import type { Block, ContentRef, DocumentNode, Inline, Text } from './document.model';

/**
 * How markdown writes links to pages (the platform's `format.markdown.refs`): `relative`, a path
 * from the page's own markdown file to the other page's, as a repository of markdown files links
 * them (the platform's default); `stable`, `/pages/<id>`, which survives moves and renames.
 * Other references (files, users, other spaces…) are written stable either way.
 */
export const MARKDOWN_REFS = ['relative', 'stable'] as const;
export type MarkdownRefs = (typeof MARKDOWN_REFS)[number];
export const DEFAULT_MARKDOWN_REFS: MarkdownRefs = 'relative';

/** What a page needs for its place among markdown files. */
export interface PageLocation {
  type: 'document' | 'group' | 'link';
  path: string;
  childIds: readonly string[];
}

/**
 * A page's markdown file in the platform's repository layout (the one zip imports read): `a/b.md`,
 * or `a/b/README.md` for a page with subpages. Link pages have no file.
 */
export function markdownFileOf(page: PageLocation): string | null {
  if (page.type === 'link' || page.path === '') return null;
  return page.childIds.length > 0 ? `${page.path}/README.md` : `${page.path}.md`;
}

/** The relative href from one page's markdown file to another's, or null when either has none. */
export function relativePageHref(from: PageLocation, to: PageLocation): string | null {
  const source = markdownFileOf(from);
  const target = markdownFileOf(to);
  if (source === null || target === null) return null;
  // Rooted at '/', so that `posix.relative` never consults the process's working directory.
  return posix.relative(posix.dirname(`/${source}`), `/${target}`);
}

/**
 * A copy of the document whose links to pages of this space are written as relative paths from
 * `from`'s markdown file (plain URL references, which markdown export writes as they are). A page
 * missing from the revision, a link page, or a reference to another space keeps its stable form.
 */
export function withRelativePageLinks(
  document: DocumentNode,
  from: PageLocation,
  pageOf: (id: string) => PageLocation | undefined,
  spaceId: string,
): DocumentNode {
  const relative = (ref: unknown): ContentRef | undefined => {
    if (ref === null || typeof ref !== 'object') return undefined;
    const reference = ref as ContentRef;
    if (reference.kind !== 'page' && !(reference.kind === 'anchor' && reference.page !== undefined)) return undefined;
    if (reference.space !== undefined && reference.space !== spaceId) return undefined;
    const target = pageOf(reference.kind === 'page' ? reference.page : reference.page!);
    const href = target ? relativePageHref(from, target) : null;
    if (href === null) return undefined;
    return { kind: 'url', url: reference.kind === 'anchor' ? `${href}#${reference.anchor}` : href };
  };
  const withRef = <T extends Block | Inline>(node: T): T => {
    const replaced = relative(node.data?.ref);
    return replaced ? { ...node, data: { ...node.data, ref: replaced } } : node;
  };
  const inline = (node: Inline): Inline => withRef(node);
  const block = (node: Block): Block => {
    const own = withRef(node);
    if (!own.nodes) return own;
    return {
      ...own,
      nodes: own.nodes.map((child): Block | Inline | Text =>
        child.object === 'block' ? block(child) : child.object === 'inline' ? inline(child) : child,
      ),
    };
  };
  return { ...document, nodes: document.nodes.map(block) };
}

/**
 * The page a relative link between markdown files names (`../guide.md`, `setup/README.md#linux`),
 * read from `from`'s markdown file: the inverse of `relativePageHref`. Null for anything else (a
 * URL with a scheme or a host, an absolute path, a bare anchor, a file that is not markdown, a path
 * naming no page).
 */
export function pageRefOfRelativeHref(href: string, from: PageLocation, pageAt: (path: string) => string | undefined): ContentRef | null {
  if (href === '' || /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(href) || href.startsWith('/') || href.startsWith('#') || href.startsWith('\\'))
    return null;
  const source = markdownFileOf(from);
  if (source === null) return null;
  const hash = href.indexOf('#');
  const anchor = hash < 0 ? undefined : href.slice(hash + 1);
  let file: string;
  try {
    file = decodeURIComponent(hash < 0 ? href : href.slice(0, hash));
  } catch {
    return null;
  }
  if (!/\.md$/i.test(file)) return null;
  // Segment by segment, so that a link climbing out of the repository names nothing.
  const segments = posix
    .dirname(source)
    .split('/')
    .filter((segment) => segment !== '.' && segment !== '');
  for (const segment of file.split('/')) {
    if (segment === '..') {
      if (segments.length === 0) return null;
      segments.pop();
    } else if (segment !== '.' && segment !== '') segments.push(segment);
  }
  const resolved = segments.join('/');
  const path = /(^|\/)README\.md$/i.test(resolved) ? resolved.replace(/\/?README\.md$/i, '') : resolved.replace(/\.md$/i, '');
  if (path === '') return null;
  const page = pageAt(path);
  if (page === undefined) return null;
  return anchor ? { kind: 'anchor', anchor, page } : { kind: 'page', page };
}

/**
 * A copy of the document whose URL references that are relative links to pages' markdown files
 * (what `format.markdown.refs=relative` writes) name those pages again; null when none does, so
 * that a body without such links is left as it is.
 */
export function withPageLinksFromRelativeHrefs(
  document: DocumentNode,
  from: PageLocation,
  pageAt: (path: string) => string | undefined,
): DocumentNode | null {
  let changed = false;
  const resolved = (ref: unknown): ContentRef | undefined => {
    if (ref === null || typeof ref !== 'object' || (ref as ContentRef).kind !== 'url') return undefined;
    const page = pageRefOfRelativeHref((ref as { url: string }).url, from, pageAt);
    if (page) changed = true;
    return page ?? undefined;
  };
  const withRef = <T extends Block | Inline>(node: T): T => {
    const replaced = resolved(node.data?.ref);
    return replaced ? { ...node, data: { ...node.data, ref: replaced } } : node;
  };
  const block = (node: Block): Block => {
    const own = withRef(node);
    if (!own.nodes) return own;
    return {
      ...own,
      nodes: own.nodes.map((child): Block | Inline | Text =>
        child.object === 'block' ? block(child) : child.object === 'inline' ? withRef(child) : child,
      ),
    };
  };
  const nodes = document.nodes.map(block);
  return changed ? { ...document, nodes } : null;
}
