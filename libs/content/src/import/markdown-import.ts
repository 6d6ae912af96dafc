import { MAX_MARKDOWN_LENGTH } from '#document/markdown-import';
import { decodeText } from './content-types';
import { ImportFailure } from './import-failure';
import { type ImportDeps, type ImportLimits, type ImportPlan, type NewId, type PlannedPage, importLimits } from './import-plan';
import { leadingTitleHeading, parseMarkdown, splitFrontMatter, titleFromFileName, titleOf } from './markdown-source';
import { type ContentTypeRule, safeFetch } from './safe-fetch';

const MARKDOWN_MEDIA_TYPES = new Set(['text/markdown', 'text/x-markdown', 'text/plain']);

export function isMarkdownPath(path: string): boolean {
  return /\.(md|markdown)$/i.test(path);
}

/** Markdown is served as text/markdown or text/plain; a .md file may come as anything but an HTML page. */
export const MARKDOWN_CONTENT: ContentTypeRule = {
  label: 'a markdown file (text/markdown, text/plain or .md)',
  accept: 'text/markdown, text/plain;q=0.9, */*;q=0.1',
  matches: (mediaType, url) =>
    MARKDOWN_MEDIA_TYPES.has(mediaType) ||
    (isMarkdownPath(url.pathname) && mediaType !== 'text/html' && mediaType !== 'application/xhtml+xml'),
};

/** The most bytes a page's markdown takes: UTF-8 needs at most 3 bytes for each UTF-16 unit. */
export const MAX_MARKDOWN_BYTES = 3 * MAX_MARKDOWN_LENGTH;

/** Markdown longer than a page may be is refused before anything parses it. */
export function checkedMarkdown(text: string, what: string): string {
  if (text.length > MAX_MARKDOWN_LENGTH) {
    throw new ImportFailure(413, `${what} is ${text.length} characters long, more than the ${MAX_MARKDOWN_LENGTH} a page may have`);
  }
  return text;
}

/** Imports one markdown file as one page. Its relative links and images stay as written. */
export async function importMarkdown(url: string, limitOverrides: Partial<ImportLimits>, deps: ImportDeps): Promise<ImportPlan> {
  const limits = importLimits(limitOverrides);
  const fetched = await safeFetch(url, {
    allowPrivateNetworks: deps.allowPrivateNetworks,
    lookup: deps.lookup,
    maxBytes: Math.min(limits.maxBytes, MAX_MARKDOWN_BYTES),
    timeMs: limits.timeMs,
    accept: MARKDOWN_CONTENT,
  });
  const fallbackTitle = titleFromFileName(fetched.url.pathname) || fetched.url.hostname;
  const text = checkedMarkdown(decodeText(fetched.bytes, fetched.contentType), `the markdown file ${fetched.url.href}`);
  const page = await deps.conversions.markdownPage(text, fallbackTitle);
  return { pages: [page], files: [], importedResources: 1, totalResources: 1, warnings: [] };
}

/**
 * One markdown text as a page. The text is kept as written, less its front matter and the leading
 * `# heading` when that heading is the title.
 */
export function markdownPage(text: string, fallbackTitle: string, newId: NewId): PlannedPage {
  const { frontMatter, body } = splitFrontMatter(text);
  const root = parseMarkdown(body);
  const { title, leadingHeadingIsTitle } = titleOf(root, frontMatter, fallbackTitle);
  const headingEnd = leadingHeadingIsTitle ? leadingTitleHeading(root)?.position?.end.offset : undefined;
  const markdown = (headingEnd === undefined ? body : body.slice(headingEnd)).replace(/^(?:[ \t]*\r?\n)+/, '');
  return {
    id: newId(),
    title,
    markdown,
    ...(frontMatter.description === undefined ? {} : { description: frontMatter.description }),
    pages: [],
  };
}
