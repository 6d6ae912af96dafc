import { block, doc, link, paragraph } from './testing/document.builders';
import { documentToMarkdown } from './markdown-export';
import { markdownToDocument } from './markdown-import';
import {
  markdownFileOf,
  pageRefOfRelativeHref,
  relativePageHref,
  withPageLinksFromRelativeHrefs,
  withRelativePageLinks,
  type PageLocation,
} from './markdown-refs';
import type { ContentRef, DocumentNode, Inline } from './document.model';

/** guide (with install below it, linux below install), faq, a link page. */
const PAGES: Record<string, PageLocation> = {
  guide: { type: 'document', path: 'guide', childIds: ['install'] },
  install: { type: 'document', path: 'guide/install', childIds: ['linux'] },
  linux: { type: 'document', path: 'guide/install/linux', childIds: [] },
  faq: { type: 'document', path: 'faq', childIds: [] },
  out: { type: 'link', path: '', childIds: [] },
};
const pageOf = (id: string) => PAGES[id];
const pageAt = (path: string) => Object.entries(PAGES).find(([, page]) => page.path === path && page.type !== 'link')?.[0];
const linksOf = (document: DocumentNode): ContentRef[] =>
  (document.nodes[0].nodes as Inline[]).filter((node) => node.object === 'inline').map((node) => node.data!.ref as ContentRef);

describe('markdown files of pages (format.markdown.refs=relative)', () => {
  it('puts a page with subpages in its folder as README.md and a leaf page beside its siblings', () => {
    expect(markdownFileOf(PAGES.guide)).toBe('guide/README.md');
    expect(markdownFileOf(PAGES.linux)).toBe('guide/install/linux.md');
    expect(markdownFileOf(PAGES.out)).toBeNull();
  });

  it('writes a link from one page to another as the path between their markdown files', () => {
    expect(relativePageHref(PAGES.linux, PAGES.faq)).toBe('../../faq.md');
    expect(relativePageHref(PAGES.faq, PAGES.linux)).toBe('guide/install/linux.md');
    expect(relativePageHref(PAGES.guide, PAGES.install)).toBe('install/README.md');
    expect(relativePageHref(PAGES.install, PAGES.guide)).toBe('../README.md');
  });

  it('rewrites page and anchor links of the space as relative links and leaves other references stable', () => {
    const document = doc(
      paragraph(
        link({ kind: 'page', page: 'faq' }, 'faq'),
        link({ kind: 'anchor', anchor: 'setup', page: 'install' }, 'setup'),
        link({ kind: 'page', page: 'gone' }, 'gone'),
        link({ kind: 'page', page: 'faq', space: 'other' }, 'elsewhere'),
        link({ kind: 'file', file: 'f1' }, 'file'),
        link({ kind: 'page', page: 'out' }, 'link page'),
      ),
    );
    expect(linksOf(withRelativePageLinks(document, PAGES.linux, pageOf, 'space1'))).toEqual([
      { kind: 'url', url: '../../faq.md' },
      { kind: 'url', url: 'README.md#setup' },
      { kind: 'page', page: 'gone' },
      { kind: 'page', page: 'faq', space: 'other' },
      { kind: 'file', file: 'f1' },
      { kind: 'page', page: 'out' },
    ]);
  });

  it('rewrites references held by blocks too (content-ref)', () => {
    const document = doc(block('content-ref', [], { ref: { kind: 'page', page: 'faq' } }));
    expect(documentToMarkdown(withRelativePageLinks(document, PAGES.guide, pageOf, 'space1'))).toContain(
      '{% content-ref url="../faq.md" %}',
    );
  });

  it('does not change the document it is given', () => {
    const document = Object.freeze(doc(paragraph(link({ kind: 'page', page: 'faq' }, 'faq'))));
    withRelativePageLinks(document, PAGES.linux, pageOf, 'space1');
    expect(linksOf(document)).toEqual([{ kind: 'page', page: 'faq' }]);
  });
});

describe('relative links read back (batch writes)', () => {
  it('reads a relative link to a page’s markdown file as that page, with its anchor', () => {
    expect(pageRefOfRelativeHref('../../faq.md', PAGES.linux, pageAt)).toEqual({ kind: 'page', page: 'faq' });
    expect(pageRefOfRelativeHref('install/README.md#setup', PAGES.guide, pageAt)).toEqual({
      kind: 'anchor',
      anchor: 'setup',
      page: 'install',
    });
    expect(pageRefOfRelativeHref('./linux.md', PAGES.install, pageAt)).toEqual({ kind: 'page', page: 'linux' });
    expect(pageRefOfRelativeHref('README.md', PAGES.linux, pageAt)).toEqual({ kind: 'page', page: 'install' });
  });

  it('reads nothing from URLs, absolute paths, anchors, other files, unknown paths or paths climbing out of the space', () => {
    for (const href of [
      'https://example.com/faq.md',
      '//example.com/faq.md',
      '/faq.md',
      '#setup',
      '../faq.png',
      'nowhere.md',
      '../../../../faq.md',
      '../../README.md',
      '%E0%A4%A.md',
      '',
    ]) {
      expect(pageRefOfRelativeHref(href, PAGES.linux, pageAt)).toBeNull();
    }
  });

  it('round-trips: markdown written with relative links names the same pages when read back from the same page', () => {
    const original = doc(
      paragraph(link({ kind: 'page', page: 'faq' }, 'faq'), link({ kind: 'anchor', anchor: 'x', page: 'guide' }, 'guide')),
    );
    const markdown = documentToMarkdown(withRelativePageLinks(original, PAGES.linux, pageOf, 'space1'));
    const converted = markdownToDocument(markdown).document;
    const relinked = withPageLinksFromRelativeHrefs(converted, PAGES.linux, pageAt);
    expect(relinked && linksOf(relinked)).toEqual([
      { kind: 'page', page: 'faq' },
      { kind: 'anchor', anchor: 'x', page: 'guide' },
    ]);
  });

  it('answers null when the document has no relative page link, leaving it as it is', () => {
    expect(
      withPageLinksFromRelativeHrefs(doc(paragraph(link({ kind: 'url', url: 'https://example.com' }, 'site'))), PAGES.linux, pageAt),
    ).toBeNull();
  });
});
