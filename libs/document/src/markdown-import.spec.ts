import { mark, withoutKeys } from './document.nodes';
import type { Block, ContentRef } from './document.model';
import { guardMarkdown, MAX_LIST_NESTING_LINES, topLevelParts } from './markdown-guards';
import { markdownToDocument, parseMarkdownParts } from './markdown-import';
import {
  block,
  doc,
  file,
  image,
  inlineImage,
  inlineMath,
  leaves,
  link,
  list,
  page,
  paragraph,
  sequentialKeys,
  text,
  url,
} from './testing/document.builders';

/** The body's blocks without keys. */
function bodyOf(markdown: string, resolveLink?: (href: string) => ContentRef | null): Block[] {
  return withoutKeys(markdownToDocument(markdown, { resolveLink }).document).nodes;
}

describe('markdownToDocument', () => {
  describe('title and front matter', () => {
    it('a leading `# heading` is the title and is left out of the body', () => {
      const { title, document } = markdownToDocument('# Getting started\n\nWelcome.');
      expect(title).toBe('Getting started');
      expect(withoutKeys(document)).toEqual(doc(paragraph('Welcome.')));
    });

    it('front matter `title:` is the title, and a leading heading then stays in the body', () => {
      const { title, document } = markdownToDocument('---\ntitle: From front matter\n---\n# Heading\n');
      expect(title).toBe('From front matter');
      expect(withoutKeys(document)).toEqual(doc(block('heading-1', ['Heading'])));
    });

    it('front matter `description:` is returned with the rest of the front matter', () => {
      const { frontMatter } = markdownToDocument('---\ntitle: T\ndescription: A short summary\ntags: [a, b]\n---\nBody');
      expect(frontMatter).toEqual({ title: 'T', description: 'A short summary', tags: ['a', 'b'] });
    });

    it('front matter keys that name prototypes are dropped', () => {
      const { frontMatter } = markdownToDocument('---\n__proto__: { polluted: true }\nconstructor: x\nok: 1\n---\n');
      expect(frontMatter).toEqual({ ok: 1 });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('a `---` block that is not a YAML mapping is not front matter', () => {
      expect(markdownToDocument('---\n- a list\n---\nText').frontMatter).toBeNull();
    });

    it('an underlined (setext) leading heading is not the title', () => {
      const { title, document } = markdownToDocument('Section\n=======\n\nText');
      expect(title).toBeNull();
      expect(withoutKeys(document)).toEqual(doc(block('heading-1', ['Section']), paragraph('Text')));
    });

    it('the title is the heading text without its marks', () => {
      expect(markdownToDocument('# The **bold** [way](https://example.com)').title).toBe('The bold way');
    });
  });

  describe('keys', () => {
    it('every block, nested ones included, gets a key from newKey in document order', () => {
      const { document } = markdownToDocument('- a\n- b\n\nText', { newKey: sequentialKeys() });
      const list = document.nodes[0];
      expect(list.key).toBe('k1');
      expect(list.nodes?.map((item) => (item as Block).key)).toEqual(['k2', 'k4']);
      expect(((list.nodes?.[0] as Block).nodes?.[0] as Block).key).toBe('k3');
      expect(document.nodes[1].key).toBe('k6');
    });

    it('default keys are short base-62 strings, unique within the document', () => {
      const { document } = markdownToDocument('a\n\nb\n\nc\n\n- d\n- e');
      const keys = JSON.stringify(document)
        .match(/"key":"[^"]*"/g)!
        .map((entry) => entry.slice(7, -1));
      expect(new Set(keys).size).toBe(keys.length);
      for (const key of keys) expect(key).toMatch(/^[0-9A-Za-z]{6,20}$/);
    });
  });

  describe('ordinary markdown', () => {
    it('a soft line break is a space, a hard break a line break', () => {
      expect(bodyOf('one\ntwo  \nthree\\\nfour')).toEqual([paragraph('one two\nthree\nfour')]);
    });

    it('emphasis, strong emphasis, strikethrough and code spans are the italic, bold, strikethrough and code marks', () => {
      expect(bodyOf('*i* **b** ~~s~~ `c` ***bi***')).toEqual([
        paragraph(
          leaves(
            ['i', 'italic'],
            [' '],
            ['b', 'bold'],
            [' '],
            ['s', 'strikethrough'],
            [' '],
            ['c', 'code'],
            [' '],
            ['bi', 'bold', 'italic'],
          ),
        ),
      ]);
    });

    it('`#` to `###` are heading-1 to heading-3, deeper headings are heading-3', () => {
      expect(bodyOf('Intro\n\n# One\n\n## Two\n\n### Three\n\n#### Four')).toEqual([
        paragraph('Intro'),
        block('heading-1', ['One']),
        block('heading-2', ['Two']),
        block('heading-3', ['Three']),
        block('heading-3', ['Four']),
      ]);
    });

    it('bulleted and numbered lists hold list items of blocks, nested lists included', () => {
      expect(bodyOf('- a\n  1. b\n  2. c\n- d')).toEqual([
        list('list-unordered', [paragraph('a'), list('list-ordered', [paragraph('b')], [paragraph('c')])], [paragraph('d')]),
      ]);
    });

    it('a numbered list starting at another number than 1 keeps its start', () => {
      expect(bodyOf('3. c\n4. d')).toEqual([{ ...list('list-ordered', [paragraph('c')], [paragraph('d')]), data: { start: 3 } }]);
    });

    it('a task list is list-tasks whose items say whether they are checked', () => {
      expect(bodyOf('- [ ] todo\n- [x] done')).toEqual([
        block('list-tasks', [
          block('list-item', [paragraph('todo')], { checked: false }),
          block('list-item', [paragraph('done')], { checked: true }),
        ]),
      ]);
    });

    it('a fenced code block is code-line blocks, its language the syntax', () => {
      expect(bodyOf('```js\nconst a = 1;\n\nreturn a;\n```')).toEqual([
        block('code', [block('code-line', ['const a = 1;']), block('code-line', ['']), block('code-line', ['return a;'])], {
          syntax: 'js',
        }),
      ]);
    });

    it('`title="..."` after the language is the code block title', () => {
      expect(bodyOf('```yaml title="config.yml"\na: 1\n```')).toEqual([
        block('code', [block('code-line', ['a: 1'])], { syntax: 'yaml', title: 'config.yml' }),
      ]);
    });

    it('a block quote holds blocks', () => {
      expect(bodyOf('> quoted\n>\n> - item')).toEqual([
        block('blockquote', [paragraph('quoted'), list('list-unordered', [paragraph('item')])]),
      ]);
    });

    it('a thematic break is a divider', () => {
      expect(bodyOf('a\n\n***\n\nb')).toEqual([paragraph('a'), block('divider'), paragraph('b')]);
    });

    it('a GFM table is rows of cells, the first row flagged as the header, with the columns alignment', () => {
      expect(bodyOf('| A | B |\n|:--|--:|\n| 1 | **2** |')).toEqual([
        block(
          'table',
          [
            block('table-row', [block('table-cell', ['A']), block('table-cell', ['B'])], { header: true }),
            block('table-row', [block('table-cell', ['1']), block('table-cell', [text('2', 'bold')])]),
          ],
          { align: ['left', 'right'] },
        ),
      ]);
    });

    it('a table row with fewer cells than the header is padded with empty cells', () => {
      const [table] = bodyOf('| A | B |\n| - | - |\n| 1 |');
      expect((table.nodes?.[1] as Block).nodes).toEqual([block('table-cell', ['1']), block('table-cell', [''])]);
    });

    it('`<br>` in a table cell is a line break', () => {
      const [table] = bodyOf('| A |\n| - |\n| one<br>two |');
      expect(((table.nodes?.[1] as Block).nodes?.[0] as Block).nodes).toEqual([text('one\ntwo')]);
    });

    it('literal web and email addresses are links (GFM autolinks)', () => {
      expect(bodyOf('see www.example.com')).toEqual([paragraph('see ', link(url('http://www.example.com'), 'www.example.com'), '')]);
    });

    it('an empty comment inside an address keeps it as text', () => {
      expect(bodyOf('write to a<!---->@example.com')).toEqual([paragraph('write to a@example.com')]);
    });

    it('an HTML comment leaves nothing', () => {
      expect(bodyOf('<!-- a note -->\n\ntext <!-- inline --> here')).toEqual([paragraph('text  here')]);
    });

    it('other HTML blocks keep their content through hast-util-to-mdast', () => {
      expect(bodyOf('<div align="center"><p>Centred <b>text</b></p></div>')).toEqual([paragraph(leaves(['Centred '], ['text', 'bold']))]);
    });
  });

  describe('links and images', () => {
    it('`[text](/pages/<id>)` links to a page', () => {
      expect(bodyOf('See [the guide](/pages/abc123).')).toEqual([paragraph('See ', link(page('abc123'), 'the guide'), '.')]);
    });

    it('links name files, anchors, anchors in other pages, spaces and URLs', () => {
      const [paragraphBlock] = bodyOf(
        '[f](/files/f1) [a](#usage) [pa](/pages/p1#usage) [s](/spaces/s1/pages/p2) [u](https://example.com/x)',
      );
      const refs = paragraphBlock.nodes?.filter((node) => node.object === 'inline').map((node) => node.data?.ref);
      expect(refs).toEqual([
        { kind: 'file', file: 'f1' },
        { kind: 'anchor', anchor: 'usage' },
        { kind: 'anchor', anchor: 'usage', page: 'p1' },
        { kind: 'page', page: 'p2', space: 's1' },
        { kind: 'url', url: 'https://example.com/x' },
      ]);
    });

    it('`[@Name](/users/<id>)` is a mention', () => {
      expect(bodyOf('Ask [@Ada](/users/u1)')).toEqual([paragraph('Ask ', link({ kind: 'user', user: 'u1' }, '@Ada'), '')]);
    });

    it('marks around a link are marks of its text', () => {
      expect(bodyOf('**[bold link](/pages/p1)**')).toEqual([paragraph('', link(page('p1'), text('bold link', 'bold')), '')]);
    });

    it('resolveLink maps the hrefs it knows before the default rules', () => {
      const resolve = (href: string): ContentRef | null => (href === './setup.md' ? page('setup') : null);
      expect(bodyOf('[Setup](./setup.md) and [other](./other.md)', resolve)).toEqual([
        paragraph('', link(page('setup'), 'Setup'), ' and ', link(url('./other.md'), 'other'), ''),
      ]);
    });

    it('a link whose URL runs code keeps only its text', () => {
      expect(bodyOf('[click](javascript:alert(1)) [data](data:text/html;base64,x)')).toEqual([paragraph('click data')]);
    });

    it('reference-style links resolve through their definitions', () => {
      expect(bodyOf('Read [the docs][docs].\n\n[docs]: /pages/p9')).toEqual([paragraph('Read ', link(page('p9'), 'the docs'), '.')]);
    });

    it('an image alone in a paragraph is an images block holding one image', () => {
      expect(bodyOf('![A diagram](/files/f1)')).toEqual([block('images', [image(file('f1'), 'A diagram')])]);
    });

    it('images separated only by whitespace make one images block', () => {
      expect(bodyOf('![a](/files/f1) ![b](https://example.com/b.png)')).toEqual([
        block('images', [image(file('f1'), 'a'), image(url('https://example.com/b.png'), 'b')]),
      ]);
    });

    it('an image within text is an inline image', () => {
      expect(bodyOf('Click ![the icon](/files/icon) to start')).toEqual([
        paragraph('Click ', inlineImage(file('icon'), 'the icon'), ' to start'),
      ]);
    });

    it('`<figure>` with `<img>` and `<figcaption>` is an image with a caption', () => {
      expect(
        bodyOf('<figure><img src="/files/f2" alt="Chart"><figcaption><p>Sales, <strong>2024</strong></p></figcaption></figure>'),
      ).toEqual([block('images', [image(file('f2'), 'Chart', leaves(['Sales, '], ['2024', 'bold']))])]);
    });

    it('a linked image (a badge) is a link whose text is the alt text', () => {
      expect(bodyOf('[![build](https://ci.example.com/badge.svg)](https://ci.example.com)')).toEqual([
        paragraph('', link(url('https://ci.example.com'), 'build'), ''),
      ]);
    });
  });

  describe('marks written as HTML', () => {
    it('`<kbd>`, `<sup>` and `<sub>` are the keyboard, superscript and subscript marks', () => {
      expect(bodyOf('<kbd>Ctrl</kbd> x<sup>2</sup> H<sub>2</sub>O')).toEqual([
        paragraph(leaves(['Ctrl', 'keyboard'], [' x'], ['2', 'superscript'], [' H'], ['2', 'subscript'], ['O'])),
      ]);
    });

    it('`<mark style="color:...">` is a color mark with data.color', () => {
      expect(bodyOf('<mark style="color:red;background-color:#ffee00;">alert</mark>')).toEqual([
        paragraph(text('alert', mark('color', { color: 'red', background: '#ffee00' }))),
      ]);
    });

    it('a color that could leave the style attribute is dropped', () => {
      expect(bodyOf('<mark style="color:red&quot; onclick=&quot;x">a</mark>')).toEqual([paragraph(text('a', 'color'))]);
    });

    it('HTML marks span emphasis inside them', () => {
      expect(bodyOf('<kbd>a *b*</kbd>')).toEqual([paragraph(leaves(['a ', 'keyboard'], ['b', 'italic', 'keyboard']))]);
    });

    it('a tag without its partner leaves its text and no mark', () => {
      expect(bodyOf('a <kbd>b')).toEqual([paragraph('a b')]);
    });
  });

  describe('platform blocks', () => {
    it('`{% hint style="warning" %}` is a hint block with that style', () => {
      expect(bodyOf('{% hint style="warning" %}\nCareful **now**.\n{% endhint %}')).toEqual([
        block('hint', [paragraph(leaves(['Careful '], ['now', 'bold'], ['.']))], { style: 'warning' }),
      ]);
    });

    it('a hint with an unknown style is an info hint', () => {
      expect(bodyOf('{% hint style="shiny" %}\nx\n{% endhint %}')).toEqual([block('hint', [paragraph('x')], { style: 'info' })]);
    });

    it('`{% tabs %}` holds a tabs item per `{% tab title="..." %}`', () => {
      expect(
        bodyOf('{% tabs %}\n{% tab title="npm" %}\nnpm i\n{% endtab %}\n{% tab title="yarn" %}\nyarn add\n{% endtab %}\n{% endtabs %}'),
      ).toEqual([
        block('tabs', [
          block('tabs-item', [paragraph('npm i')], { title: 'npm' }),
          block('tabs-item', [paragraph('yarn add')], { title: 'yarn' }),
        ]),
      ]);
    });

    it('`<details>` with `<summary>` is an expandable titled by the summary', () => {
      expect(bodyOf('<details>\n<summary>More &amp; less</summary>\n\nHidden *text*.\n\n</details>')).toEqual([
        block('expandable', [paragraph(leaves(['Hidden '], ['text', 'italic'], ['.']))], { title: 'More & less' }),
      ]);
    });

    it('`{% stepper %}` holds a stepper step per `{% step %}`', () => {
      expect(bodyOf('{% stepper %}\n{% step %}\nOne\n{% endstep %}\n{% step %}\nTwo\n{% endstep %}\n{% endstepper %}')).toEqual([
        block('stepper', [block('stepper-step', [paragraph('One')]), block('stepper-step', [paragraph('Two')])]),
      ]);
    });

    it('`{% columns %}` holds a column per `{% column %}`', () => {
      expect(bodyOf('{% columns %}\n{% column %}\nLeft\n{% endcolumn %}\n{% column %}\nRight\n{% endcolumn %}\n{% endcolumns %}')).toEqual([
        block('columns', [block('column', [paragraph('Left')]), block('column', [paragraph('Right')])]),
      ]);
    });

    it('`{% embed url="..." %}` is an embed block', () => {
      expect(bodyOf('{% embed url="https://www.youtube.com/watch?v=x" %}')).toEqual([
        block('embed', [''], { url: 'https://www.youtube.com/watch?v=x' }),
      ]);
    });

    it('an embed followed by `{% endembed %}` has the lines between as its caption', () => {
      expect(bodyOf('{% embed url="https://example.com/v" %}\nThe *demo*\n{% endembed %}')).toEqual([
        block('embed', [leaves(['The '], ['demo', 'italic'])], { url: 'https://example.com/v' }),
      ]);
    });

    it('`{% file src="/files/<id>" %}` with a caption is a file block', () => {
      expect(bodyOf('{% file src="/files/f7" %}\nThe installer\n{% endfile %}')).toEqual([
        block('file', ['The installer'], { ref: file('f7') }),
      ]);
    });

    it('`{% content-ref url="/pages/<id>" %}` is a content-ref block; the link inside is only its display', () => {
      expect(bodyOf('{% content-ref url="/pages/p4" %}\n[Any title](/pages/p4)\n{% endcontent-ref %}')).toEqual([
        block('content-ref', [], { ref: page('p4') }),
      ]);
    });

    it('`{% openapi-operation %}` is an OpenAPI operation naming its spec', () => {
      expect(bodyOf('{% openapi-operation spec="petstore" path="/pets" method="get" %}')).toEqual([
        block('openapi-operation', [], { ref: { kind: 'openapi', spec: 'petstore' }, path: '/pets', method: 'get' }),
      ]);
    });

    it('`{% swagger %}` holds the blocks up to `{% endswagger %}`', () => {
      expect(
        bodyOf('{% swagger src="https://example.com/api.json" path="/pets" method="post" %}\nCreates a pet.\n{% endswagger %}'),
      ).toEqual([block('swagger', [paragraph('Creates a pet.')], { src: 'https://example.com/api.json', path: '/pets', method: 'post' })]);
    });

    it('`$$` lines around a formula are a math block, the formula read raw', () => {
      expect(bodyOf('$$\nf(x) = x_1 * x_2 \\{a\\}\n$$')).toEqual([block('math', [], { formula: 'f(x) = x_1 * x_2 \\{a\\}' })]);
    });

    it('`$$formula$$` within text is inline math, the formula read raw', () => {
      expect(bodyOf('Where $$a*b*c$$ holds')).toEqual([paragraph('Where ', inlineMath('a*b*c'), ' holds')]);
    });

    it("GitBook's `{% code title %}` wrapper gives its title to the code block inside", () => {
      expect(bodyOf('{% code title="app.ts" %}\n```ts\nrun();\n```\n{% endcode %}')).toEqual([
        block('code', [block('code-line', ['run();'])], { syntax: 'ts', title: 'app.ts' }),
      ]);
    });

    it('platform blocks nest inside one another', () => {
      expect(bodyOf('{% tabs %}\n{% tab title="A" %}\n{% hint style="danger" %}\nNo\n{% endhint %}\n{% endtab %}\n{% endtabs %}')).toEqual([
        block('tabs', [block('tabs-item', [block('hint', [paragraph('No')], { style: 'danger' })], { title: 'A' })]),
      ]);
    });

    it('platform blocks nest inside list items', () => {
      expect(bodyOf('- Step one\n\n  {% hint style="info" %}\n  Note\n  {% endhint %}\n- Step two')).toEqual([
        list('list-unordered', [paragraph('Step one'), block('hint', [paragraph('Note')], { style: 'info' })], [paragraph('Step two')]),
      ]);
    });

    it('platform blocks nest inside block quotes', () => {
      expect(bodyOf('> $$\n> x^2\n> $$')).toEqual([block('blockquote', [block('math', [], { formula: 'x^2' })])]);
    });

    it('tags inside a code fence are code', () => {
      expect(bodyOf('```\n{% hint %}\n$$\n```')).toEqual([block('code', [block('code-line', ['{% hint %}']), block('code-line', ['$$'])])]);
    });
  });

  describe('what has no place in the model stays as text', () => {
    it('an unknown `{% tag %}` stays as its text', () => {
      expect(bodyOf('{% include "x.md" %}')).toEqual([paragraph('{% include "x.md" %}')]);
    });

    it('a tag never closed stays as text, and its content stays', () => {
      expect(bodyOf('{% hint style="info" %}\n\nStill here')).toEqual([paragraph('{% hint style="info" %}'), paragraph('Still here')]);
    });

    it('an end tag without its opening stays as text', () => {
      expect(bodyOf('Text\n\n{% endhint %}')).toEqual([paragraph('Text'), paragraph('{% endhint %}')]);
    });

    it('a tab outside tabs stays as text, its content kept', () => {
      expect(bodyOf('{% tab title="A" %}\nInside\n{% endtab %}')).toEqual([
        paragraph('{% tab title="A" %}'),
        paragraph('Inside'),
        paragraph('{% endtab %}'),
      ]);
    });

    it('a tag closed out of order leaves the inner unclosed one as text', () => {
      expect(bodyOf('{% hint %}\n{% tabs %}\nx\n{% endhint %}')).toEqual([block('hint', [paragraph('{% tabs %} x')], { style: 'info' })]);
    });

    it('a file without a source stays as text', () => {
      expect(bodyOf('{% file %}\ncaption\n{% endfile %}')).toEqual([
        paragraph('{% file %}'),
        paragraph('caption'),
        paragraph('{% endfile %}'),
      ]);
    });
  });

  describe('long texts, read in parts (micromark slows down with the length of a text whose containers close often)', () => {
    /** Every kind of block that may run across a blank line, and loose lists, in a text long enough to be cut. */
    const SAMPLE = [
      'Text with a [reference][Ref], a [shortcut] and footnotes[^1][^end].',
      '- loose item\n\n  its second paragraph\n\n- next item of the same list',
      '1. first\n\n2. second',
      '```js\ncode\n\nat the margin, still code\n```',
      '- ```\n  fenced in an item\n\n  still fenced\n  ```\n- after',
      '> a quote\nlazy line',
      '<!--\na comment\n\nat the margin, still a comment\n-->',
      '<pre>\npre\n\nat the margin, still pre\n</pre>',
      '| a | b |\n|---|---|\n| 1 | 2 |',
      '    indented code\n\n    more of it',
      '[^1]: the note',
    ].join('\n\n');
    const LONG = `${Array.from({ length: 40 }, () => SAMPLE).join('\n\n')}\n\n[Ref]: /pages/ref\n[shortcut]: https://example.com/\n\n[^end]: the last note`;
    const withoutPositions = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(withoutPositions)
        : value && typeof value === 'object'
          ? Object.fromEntries(
              Object.entries(value)
                .filter(([name]) => name !== 'position')
                .map(([name, member]) => [name, withoutPositions(member)]),
            )
          : value;

    it('a long text is cut into parts that read as the same blocks as the whole text', () => {
      const parts = parseMarkdownParts(LONG, 1024);
      expect(parts.length).toBeGreaterThan(10);
      expect(withoutPositions(parts.flatMap((part) => part.root.children))).toEqual(
        withoutPositions(parseMarkdownParts(LONG, Infinity)[0].root.children),
      );
    });

    it('a reference link and a footnote read their definitions from another part', () => {
      const [first] = parseMarkdownParts(LONG, 1024);
      expect(first.text).not.toMatch(/\[Ref\]:|\[\^end\]:/);
      expect((first.root.children[0] as { children: Array<{ type: string }> }).children.map((node) => node.type)).toEqual([
        'text',
        'linkReference',
        'text',
        'linkReference',
        'text',
        'footnoteReference',
        'footnoteReference',
        'text',
      ]);
      expect(bodyOf(LONG)[0]).toEqual(
        paragraph(
          'Text with a ',
          link(page('ref'), 'reference'),
          ', a ',
          link(url('https://example.com/'), 'shortcut'),
          ' and footnotes[^1][^end].',
        ),
      );
    });

    it('a cut is never inside a code fence, an HTML block or a loose list, nor before a lazy line', () => {
      for (const part of topLevelParts(LONG, 64)) {
        expect(part).not.toMatch(/^(?:at the margin|its second|- next item|2\. second|lazy line)/);
      }
    });

    it('a short text is one part', () => {
      expect(topLevelParts('# Title\n\nText.\n\nMore.', 1024)).toEqual(['# Title\n\nText.\n\nMore.']);
    });

    it('a list too long for the list budget ends at the margin, a quote around it included, so the parts can be cut there', () => {
      const quoted = Array.from({ length: MAX_LIST_NESTING_LINES + 10 }, (_, i) => `> - item ${i}\n>   - nested`).join('\n');
      const guarded = guardMarkdown(quoted);
      expect(guarded).toContain('\n\n<!-- -->\n\n>');
      expect(bodyOf(quoted).map((block) => block.type)).toEqual(['blockquote', 'blockquote']);
    });
  });
});
