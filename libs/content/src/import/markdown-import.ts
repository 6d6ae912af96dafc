import { decodeText } from './content-types';
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
    MARKDOWN_MEDIA_TYPES.has(mediaType) || (isMarkdownPath(url.pathname) && mediaType !== 'text/html' && mediaType !== 'application/xhtml+xml'),
};

/** Imports one markdown file as one page. Its relative links and images stay as written. */
export async function importMarkdown(url: string, limitOverrides: Partial<ImportLimits>, deps: ImportDeps): Promise<ImportPlan> {
  const limits = importLimits(limitOverrides);
  const fetched = await safeFetch(url, {
    allowPrivateNetworks: deps.allowPrivateNetworks,
    lookup: deps.lookup,
    maxBytes: limits.maxBytes,
    timeMs: limits.timeMs,
    accept: MARKDOWN_CONTENT,
  });
  const fallbackTitle = titleFromFileName(fetched.url.pathname) || fetched.url.hostname;
  const page = markdownPage(decodeText(fetched.bytes, fetched.contentType), fallbackTitle, deps.newId);
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
