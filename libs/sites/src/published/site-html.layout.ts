import type { Element, ElementContent, Root } from 'hast';
import { h } from 'hastscript';
import { toHtml } from 'hast-util-to-html';

/**
 * The published site's page shell (pure): a skip link, the header with the site's title, its
 * sections (in their groups) and the search form, the site space's variants and page tree as
 * navigation (the current page marked `aria-current="page"`), and the main content. Serialized by
 * `hast-util-to-html`, which escapes every text and attribute value.
 */

export interface NavLink {
  title: string;
  href: string;
  current: boolean;
}

export interface NavSectionEntry extends NavLink {
  /** The section group's title, when the section is in one. */
  group?: string;
}

export interface NavPage {
  title: string;
  /** Null for a group (a heading of the pages under it). */
  href: string | null;
  current: boolean;
  external: boolean;
  emoji?: string;
  children: NavPage[];
}

export interface SiteShell {
  siteTitle: string;
  homeHref: string;
  stylesheetHref: string;
  searchAction: string;
  query?: string;
  sections: NavSectionEntry[];
  variants: NavLink[];
  pages: NavPage[];
  /** The document's title (the tab's title is `title · siteTitle`). */
  title: string;
  noIndex: boolean;
  main: ElementContent[];
}

const text = (value: string): ElementContent => ({ type: 'text', value });

export function renderShell(shell: SiteShell): string {
  const title = shell.title === shell.siteTitle || shell.title === '' ? shell.siteTitle : `${shell.title} · ${shell.siteTitle}`;
  const head = h('head', {}, [
    h('meta', { charSet: 'utf-8' }),
    h('meta', { name: 'viewport', content: 'width=device-width, initial-scale=1' }),
    ...(shell.noIndex ? [h('meta', { name: 'robots', content: 'noindex' })] : []),
    h('title', {}, [text(title)]),
    h('link', { rel: ['stylesheet'], href: shell.stylesheetHref }),
  ]);
  const header = h('header', { className: ['site-header'] }, [
    h('a', { className: ['site-title'], href: shell.homeHref }, [text(shell.siteTitle)]),
    ...(shell.sections.length > 1 ? [sectionsNav(shell.sections)] : []),
    h('form', { role: 'search', method: 'get', action: shell.searchAction, className: ['search'] }, [
      h('label', { htmlFor: 'site-search' }, [text('Search')]),
      h('input', { id: 'site-search', type: 'search', name: 'q', value: shell.query ?? '', maxLength: 512 }),
      h('button', { type: 'submit' }, [text('Search')]),
    ]),
  ]);
  const sidebar = h('nav', { className: ['pages'], ariaLabel: 'Pages' }, [
    ...(shell.variants.length > 1
      ? [
          h('p', { className: ['nav-label'] }, [text('Variants')]),
          h(
            'ul',
            { className: ['variants'] },
            shell.variants.map((variant) => h('li', {}, [link(variant)])),
          ),
        ]
      : []),
    pageList(shell.pages),
  ]);
  const body = h('body', {}, [
    h('a', { className: ['skip'], href: '#content' }, [text('Skip to content')]),
    header,
    h('div', { className: ['layout'] }, [sidebar, h('main', { id: 'content' }, shell.main)]),
  ]);
  const root: Root = { type: 'root', children: [{ type: 'doctype' }, h('html', { lang: 'en' }, [head, body])] };
  return toHtml(root);
}

function link(entry: NavLink): Element {
  return h('a', { href: entry.href, ...(entry.current ? { ariaCurrent: 'page' } : {}) }, [text(entry.title)]);
}

function sectionsNav(sections: readonly NavSectionEntry[]): Element {
  const items: ElementContent[] = [];
  const groups = new Map<string, Element>();
  for (const section of sections) {
    if (section.group === undefined) {
      items.push(h('li', {}, [link(section)]));
      continue;
    }
    let list = groups.get(section.group);
    if (!list) {
      list = h('ul', {});
      groups.set(section.group, list);
      items.push(h('li', { className: ['group'] }, [h('span', {}, [text(section.group)]), list]));
    }
    list.children.push(h('li', {}, [link(section)]));
  }
  return h('nav', { className: ['sections'], ariaLabel: 'Sections' }, [h('ul', {}, items)]);
}

function pageList(pages: readonly NavPage[]): Element {
  return h(
    'ul',
    {},
    pages.map((page) => {
      const label = [...(page.emoji ? [h('span', { ariaHidden: 'true' }, [text(`${page.emoji} `)])] : []), text(page.title)];
      const head =
        page.href === null
          ? h('span', { className: ['group'] }, label)
          : h(
              'a',
              {
                href: page.href,
                ...(page.current ? { ariaCurrent: 'page' } : {}),
                ...(page.external ? { rel: ['noopener', 'noreferrer'] } : {}),
              },
              label,
            );
      return h('li', {}, [head, ...(page.children.length > 0 ? [pageList(page.children)] : [])]);
    }),
  );
}

/** The main content of a page: its title as the h1, its description, its body. */
export function pageMain(title: string, description: string | undefined, body: ElementContent[]): ElementContent[] {
  return [
    h('article', {}, [
      h('h1', {}, [text(title)]),
      ...(description ? [h('p', { className: ['description'] }, [text(description)])] : []),
      ...body,
    ]),
  ];
}

export interface SearchResultEntry {
  title: string;
  href: string;
  snippet: string;
}

export function searchMain(query: string, results: readonly SearchResultEntry[]): ElementContent[] {
  const heading = h('h1', {}, [text(query === '' ? 'Search' : `Results for “${query}”`)]);
  if (query === '') return [heading, h('p', {}, [text('Type words to search for in the search box.')])];
  if (results.length === 0) return [heading, h('p', {}, [text('No page matches.')])];
  return [
    heading,
    h(
      'ol',
      { className: ['results'] },
      results.map((result) =>
        h('li', {}, [h('a', { href: result.href }, [text(result.title)]), ...(result.snippet ? [h('p', {}, [text(result.snippet)])] : [])]),
      ),
    ),
  ];
}

/** A page of its own for a 404 (no site chrome: nothing about the site is revealed). */
export function notFoundPage(): string {
  const root: Root = {
    type: 'root',
    children: [
      { type: 'doctype' },
      h('html', { lang: 'en' }, [
        h('head', {}, [
          h('meta', { charSet: 'utf-8' }),
          h('meta', { name: 'robots', content: 'noindex' }),
          h('title', {}, [text('Page not found')]),
        ]),
        h('body', {}, [
          h('main', {}, [h('h1', {}, [text('Page not found')]), h('p', {}, [text('There is no page here, or you may not read it.')])]),
        ]),
      ]),
    ],
  };
  return toHtml(root);
}

const xmlEscape = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

/** A sitemap (sitemaps.org) of absolute URLs. */
export function sitemapXml(urls: readonly string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.map((url) => `  <url><loc>${xmlEscape(url)}</loc></url>\n`).join('')}</urlset>\n`;
}

/** robots.txt: crawl everything and read the sitemap when the site is public, nothing otherwise. */
export function robotsTxt(sitemapUrl: string | null): string {
  return sitemapUrl === null ? 'User-agent: *\nDisallow: /\n' : `User-agent: *\nAllow: /\nSitemap: ${sitemapUrl}\n`;
}
