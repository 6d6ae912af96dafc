import { toHtml } from 'hast-util-to-html';
import type { SiteContentRef } from '../sites.needs';
import { renderDocument, slugOf, type RefTarget } from './site-html.render';

/** Links as a site resolves them: pages to /site/<id>, URLs as they are, nothing else. */
const links = {
  resolve(ref: SiteContentRef): RefTarget | null {
    if (ref.kind === 'page') return { href: `/site/${ref.page}`, title: `Page ${ref.page}` };
    if (ref.kind === 'file') return { href: `/site/~files/${ref.file}`, title: 'report.pdf' };
    if (ref.kind === 'url' && typeof ref.url === 'string' && !ref.url.startsWith('javascript:')) return { href: ref.url };
    return null;
  },
};

const text = (value: string, marks: string[] = []) => ({
  object: 'text',
  leaves: [{ object: 'leaf', text: value, marks: marks.map((type) => ({ object: 'mark', type })) }],
});
const block = (type: string, nodes: unknown[] = [], data?: Record<string, unknown>, key?: string) => ({
  object: 'block',
  type,
  nodes,
  ...(data ? { data } : {}),
  ...(key ? { key } : {}),
});
const inline = (type: string, nodes: unknown[], data: Record<string, unknown>) => ({ object: 'inline', type, nodes, data });
const render = (...nodes: unknown[]) => toHtml(renderDocument({ object: 'document', data: {}, nodes }, links));

describe('a page body as HTML', () => {
  it('renders a paragraph', () => {
    expect(render(block('paragraph', [text('Hello')]))).toBe('<p>Hello</p>');
  });

  it('renders headings from h2 down, with an id from the text, the block key as an anchor and a link to itself', () => {
    expect(render(block('heading-1', [text('Get going')], undefined, 'k1'), block('heading-2', [text('Then')]))).toBe(
      '<h2 id="get-going"><span id="k1" class="key-anchor"></span>Get going<a href="#get-going" class="anchor" aria-label="Link to Get going">#</a></h2>' +
        '<h3 id="then">Then<a href="#then" class="anchor" aria-label="Link to Then">#</a></h3>',
    );
  });

  it('makes the highest heading level of a body an h2', () => {
    expect(render(block('heading-2', [text('Only')]))).toMatch(/^<h2 id="only">/);
  });

  it('gives headings with the same text different ids', () => {
    expect(render(block('heading-1', [text('Same')]), block('heading-1', [text('Same')]))).toMatch(/id="same".*id="same-1"/);
  });

  it('renders every inline mark', () => {
    const marks = ['bold', 'italic', 'code', 'strikethrough', 'keyboard', 'superscript', 'subscript', 'color'];
    expect(
      render(
        block(
          'paragraph',
          marks.map((mark) => text(mark, [mark])),
        ),
      ),
    ).toBe(
      '<p><strong>bold</strong><em>italic</em><code>code</code><s>strikethrough</s><kbd>keyboard</kbd><sup>superscript</sup><sub>subscript</sub><mark>color</mark></p>',
    );
  });

  it('nests several marks on one leaf in a fixed order', () => {
    expect(render(block('paragraph', [text('both', ['code', 'bold'])]))).toBe('<p><strong><code>both</code></strong></p>');
  });

  it('renders unordered, ordered and task lists', () => {
    expect(render(block('list-unordered', [block('list-item', [block('paragraph', [text('a')])])]))).toBe('<ul><li><p>a</p></li></ul>');
    expect(render(block('list-ordered', [block('list-item', [block('paragraph', [text('b')])])], { start: 3 }))).toBe(
      '<ol start="3"><li><p>b</p></li></ol>',
    );
    expect(render(block('list-tasks', [block('list-item', [block('paragraph', [text('done')])], { checked: true })]))).toContain(
      '<li class="done"><span class="task-state">☑ <span class="visually-hidden">(done) </span></span><p>done</p></li>',
    );
  });

  it('renders a code block as pre and code with its language', () => {
    expect(render(block('code', [block('code-line', [text('a < b')]), block('code-line', [text('c')])], { syntax: 'ts' }))).toBe(
      '<pre><code class="language-ts">a &#x3C; b\nc</code></pre>',
    );
  });

  it('leaves out a language that is not a language name', () => {
    expect(render(block('code', [block('code-line', [text('x')])], { syntax: 'x" onload="y' }))).toBe('<pre><code>x</code></pre>');
  });

  it('renders a table with its header cells scoped to their columns', () => {
    const row = (tag: string, cells: string[], data?: Record<string, unknown>) =>
      block(
        'table-row',
        cells.map((cell) => block('table-cell', [text(`${tag}${cell}`)])),
        data,
      );
    expect(render(block('table', [row('h', ['1', '2'], { header: true }), row('d', ['1', '2'])]))).toBe(
      '<div class="table"><table><thead><tr><th scope="col">h1</th><th scope="col">h2</th></tr></thead><tbody><tr><td>d1</td><td>d2</td></tr></tbody></table></div>',
    );
  });

  it('renders an image with its alternative text and caption', () => {
    expect(
      render(
        block('images', [block('image', [text('A chart')], { ref: { kind: 'url', url: 'https://example.com/a.png' }, alt: 'Sales' })]),
      ),
    ).toBe(
      '<div class="images"><figure><img src="https://example.com/a.png" alt="Sales" loading="lazy"><figcaption>A chart</figcaption></figure></div>',
    );
  });

  it('uses the caption as the alternative text when there is none', () => {
    expect(render(block('image', [text('Caption')], { ref: { kind: 'url', url: 'https://example.com/a.png' } }))).toContain(
      'alt="Caption"',
    );
  });

  it('renders a hint as a note', () => {
    expect(render(block('hint', [block('paragraph', [text('Careful')])], { style: 'warning' }))).toBe(
      '<aside role="note" class="hint hint-warning" aria-label="Warning"><p>Careful</p></aside>',
    );
  });

  it('renders an expandable and tabs as details and summary, the first tab open', () => {
    expect(render(block('expandable', [block('paragraph', [text('More')])], { title: 'Why?' }))).toBe(
      '<details class="expandable"><summary>Why?</summary><p>More</p></details>',
    );
    expect(
      render(
        block('tabs', [
          block('tabs-item', [block('paragraph', [text('one')])], { title: 'A' }),
          block('tabs-item', [block('paragraph', [text('two')])], { title: 'B' }),
        ]),
      ),
    ).toBe(
      '<div class="tabs"><details class="tab" open><summary>A</summary><p>one</p></details><details class="tab"><summary>B</summary><p>two</p></details></div>',
    );
  });

  it('renders a quote, a divider and math', () => {
    expect(render(block('blockquote', [block('paragraph', [text('q')])]), block('divider'), block('math', [], { formula: 'x^2' }))).toBe(
      '<blockquote><p>q</p></blockquote><hr><pre class="math"><code>x^2</code></pre>',
    );
  });

  it('links pages to the site’s URLs, and a content-ref block by the page’s title', () => {
    expect(
      render(block('paragraph', [text('See '), inline('link', [text('there')], { ref: { kind: 'page', page: 'p1' } }), text('.')])),
    ).toBe('<p>See <a href="/site/p1">there</a>.</p>');
    expect(render(block('content-ref', [], { ref: { kind: 'page', page: 'p2' } }))).toBe(
      '<p class="content-ref"><a href="/site/p2">Page p2</a></p>',
    );
  });

  it('marks links to other sites noopener and noreferrer', () => {
    expect(render(block('paragraph', [inline('link', [text('out')], { ref: { kind: 'url', url: 'https://example.com/' } })]))).toBe(
      '<p><a href="https://example.com/" rel="noopener noreferrer">out</a></p>',
    );
  });

  it('keeps the text of a link with no place on the site, without a link', () => {
    expect(render(block('paragraph', [inline('link', [text('run me')], { ref: { kind: 'url', url: 'javascript:alert(1)' } })]))).toBe(
      '<p>run me</p>',
    );
    expect(render(block('paragraph', [inline('mention', [text('@ada')], { ref: { kind: 'user', user: 'u1' } })]))).toBe('<p>@ada</p>');
  });

  it('links a file block to the file', () => {
    expect(render(block('file', [text('')], { ref: { kind: 'file', file: 'f1' } }))).toBe(
      '<p class="file"><a href="/site/~files/f1" download>report.pdf</a></p>',
    );
  });

  it('renders an emoji as its character', () => {
    expect(render(block('paragraph', [inline('emoji', [text('')], { code: '1f44d' })]))).toBe('<p>👍</p>');
  });

  it('escapes every text and attribute value', () => {
    expect(render(block('paragraph', [text('<script>alert("x")</script> & co')]))).toBe(
      '<p>&#x3C;script>alert("x")&#x3C;/script> &#x26; co</p>',
    );
    expect(render(block('expandable', [], { title: '"><img src=x onerror=alert(1)>' }))).toBe(
      '<details class="expandable"><summary>"><img src=x onerror=alert(1)></summary></details>'.replace('<img', '&#x3C;img'),
    );
    expect(
      render(block('image', [text('')], { ref: { kind: 'url', url: 'https://example.com/" onerror="alert(1)' }, alt: '"x' })),
    ).toContain('src="https://example.com/&#x22; onerror=&#x22;alert(1)" alt="&#x22;x"');
  });

  it('degrades an unknown block to its text, and one with blocks inside to those blocks', () => {
    expect(render(block('hologram', [text('still readable')]))).toBe('<p>still readable</p>');
    expect(render(block('hologram', [block('paragraph', [text('inner')])]))).toBe('<div><p>inner</p></div>');
  });

  it('ignores what is not a node and stops at a bounded depth', () => {
    expect(render(null, 42, { object: 'block' }, block('paragraph', [null, text('ok')]))).toBe('<p></p><p>ok</p>');
    let deep: unknown = block('paragraph', [text('bottom')]);
    for (let level = 0; level < 200; level++) deep = block('blockquote', [deep]);
    expect(render(deep)).not.toContain('bottom');
  });

  it('renders a line break inside a leaf as br', () => {
    expect(render(block('paragraph', [text('one\ntwo')]))).toBe('<p>one<br>two</p>');
  });
});

describe('heading slugs', () => {
  it('are lower case letters, digits and hyphens', () => {
    expect(slugOf('Hello, World! Ünïcode 2')).toBe('hello-world-unicode-2');
  });

  it('renders a resolved operation: summary, parameters as a table, responses as a list, all as text', () => {
    const operation = {
      specVersion: 'v1',
      path: '/pets',
      method: 'get',
      summary: 'List <pets>',
      parameters: [{ name: 'limit', in: 'query', required: false, description: 'How many' }],
      responses: { '200': { description: 'The pets' } },
    };
    const html = render(
      block('openapi-operation', [], { ref: { kind: 'openapi', spec: 'petstore' }, path: '/pets', method: 'get', operation }),
    );
    expect(html).toContain('<code>GET /pets</code>');
    expect(html).toContain('<strong>List &#x3C;pets></strong>');
    expect(html).toContain('<th scope="col">Parameter</th>');
    expect(html).toContain('<td><code>limit</code></td><td>query</td><td>no</td><td>How many</td>');
    expect(html).toContain('<dt><code>200</code></dt><dd>The pets</dd>');
  });
});
