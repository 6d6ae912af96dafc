import { mark } from './document.nodes';
import { documentToMarkdown } from './markdown-export';
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
  text,
  url,
} from './testing/document.builders';

describe('documentToMarkdown', () => {
  it('an empty document is empty markdown', () => {
    expect(documentToMarkdown(doc())).toBe('');
  });

  it('the title option is a leading `# heading`, front matter comes first', () => {
    expect(documentToMarkdown(doc(paragraph('Body')), { title: 'Guide', frontMatter: { description: 'About it' } })).toBe(
      '---\ndescription: About it\n---\n\n# Guide\n\nBody\n',
    );
  });

  it('without a title, a body opening with a level-1 heading writes it underlined, so it is not read back as the title', () => {
    expect(documentToMarkdown(doc(block('heading-1', ['Intro']), paragraph('Text')))).toBe('Intro\n=====\n\nText\n');
  });

  it('marks are emphasis, strong emphasis, strikethrough and code spans', () => {
    expect(
      documentToMarkdown(
        doc(paragraph(leaves(['i', 'italic'], [' '], ['b', 'bold'], [' '], ['s', 'strikethrough'], [' '], ['c', 'code']))),
      ),
    ).toBe('*i* **b** ~~s~~ `c`\n');
  });

  it('a mark stays open across leaves that keep it', () => {
    expect(documentToMarkdown(doc(paragraph(leaves(['a ', 'bold'], ['b', 'bold', 'italic'], [' c', 'bold']))))).toBe('**a *b* c**\n');
  });

  it('keyboard, superscript, subscript and color marks are HTML tags', () => {
    expect(
      documentToMarkdown(
        doc(
          paragraph(
            leaves(
              ['Ctrl', 'keyboard'],
              [' x'],
              ['2', 'superscript'],
              [' H'],
              ['2', 'subscript'],
              ['O '],
              ['red', mark('color', { color: 'red' })],
            ),
          ),
        ),
      ),
    ).toBe('<kbd>Ctrl</kbd> x<sup>2</sup> H<sub>2</sub>O <mark style="color:red;">red</mark>\n');
  });

  it('a line break is `<br>`, which works in paragraphs, headings and table cells alike', () => {
    expect(documentToMarkdown(doc(paragraph('one\ntwo')))).toBe('one<br>two\n');
  });

  it('text that markdown or the platform would read as syntax is escaped', () => {
    expect(documentToMarkdown(doc(paragraph('{% hint %} costs $$5 * 2 <b>')))).toBe('{\\% hint %} costs \\$\\$5 \\* 2 \\<b>\n');
  });

  it('plain text that GFM would read as a link is cut by an empty comment', () => {
    expect(documentToMarkdown(doc(paragraph('mail a@b.co or see www.example.com')))).toBe(
      'mail a<!---->@b.co or see www<!---->.example.com\n',
    );
  });

  it('headings are `#` to `###`', () => {
    expect(
      documentToMarkdown(doc(paragraph('x'), block('heading-1', ['One']), block('heading-2', ['Two']), block('heading-3', ['Three']))),
    ).toBe('x\n\n# One\n\n## Two\n\n### Three\n');
  });

  it('lists are `-` and `1.` items, task lists `- [ ]` and `- [x]`', () => {
    const tasks = block('list-tasks', [
      block('list-item', [paragraph('todo')], { checked: false }),
      block('list-item', [paragraph('done')], { checked: true }),
    ]);
    expect(
      documentToMarkdown(doc(list('list-unordered', [paragraph('a')], [paragraph('b')]), list('list-ordered', [paragraph('one')]), tasks)),
    ).toBe('- a\n- b\n\n1. one\n\n- [ ] todo\n- [x] done\n');
  });

  it('list items of several blocks are separated by blank lines', () => {
    expect(
      documentToMarkdown(doc(list('list-unordered', [paragraph('a'), list('list-ordered', [paragraph('b')])], [paragraph('c')]))),
    ).toBe('- a\n\n  1. b\n\n- c\n');
  });

  it('a numbered list keeps its start', () => {
    expect(documentToMarkdown(doc({ ...list('list-ordered', [paragraph('c')]), data: { start: 3 } }))).toBe('3. c\n');
  });

  it('a code block is a fence with its syntax and `title="..."`', () => {
    expect(
      documentToMarkdown(
        doc(block('code', [block('code-line', ['a: 1']), block('code-line', ['b: 2'])], { syntax: 'yaml', title: 'config.yml' })),
      ),
    ).toBe('```yaml title="config.yml"\na: 1\nb: 2\n```\n');
  });

  it('a titled code block without syntax uses the `{% code %}` tag (a fence info string starts with its language)', () => {
    expect(documentToMarkdown(doc(block('code', [block('code-line', ['x'])], { title: 'notes' })))).toBe(
      '{% code title="notes" %}\n```\nx\n```\n{% endcode %}\n',
    );
  });

  it('a hint is `{% hint style=... %}` around its blocks', () => {
    expect(documentToMarkdown(doc(block('hint', [paragraph('Careful')], { style: 'danger' })))).toBe(
      '{% hint style="danger" %}\nCareful\n{% endhint %}\n',
    );
  });

  it('a block quote is `>` lines, a divider `***`', () => {
    expect(documentToMarkdown(doc(block('blockquote', [paragraph('q')]), block('divider')))).toBe('> q\n\n***\n');
  });

  it('a table is a GFM table with its alignment, `|` in cells escaped', () => {
    const table = block(
      'table',
      [
        block('table-row', [block('table-cell', ['A']), block('table-cell', ['B'])], { header: true }),
        block('table-row', [block('table-cell', ['a|b']), block('table-cell', ['x\ny'])]),
      ],
      { align: ['left', null] },
    );
    expect(documentToMarkdown(doc(table))).toBe('| A    | B      |\n| :--- | ------ |\n| a\\|b | x<br>y |\n');
  });

  it('spaces at the edges of a table cell, which reading trims, are written as character references', () => {
    const table = block('table', [
      block('table-row', [block('table-cell', [' a ']), block('table-cell', ['b\t']), block('table-cell', [' '])], { header: true }),
    ]);
    expect(documentToMarkdown(doc(table))).toBe('| &#x20;a&#x20; | b&#x9; | &#x20; |\n| ------------- | ------ | ------ |\n');
  });

  it('images without captions are `![alt](src)` in one paragraph', () => {
    expect(documentToMarkdown(doc(block('images', [image(file('f1'), 'One'), image(url('https://example.com/2.png'))])))).toBe(
      '![One](/files/f1) ![](https://example.com/2.png)\n',
    );
  });

  it('an image with a caption is a `<figure>` with its caption as HTML', () => {
    expect(documentToMarkdown(doc(block('images', [image(file('f2'), 'Chart', leaves(['Sales '], ['2024', 'bold']))])))).toBe(
      '<figure><img src="/files/f2" alt="Chart"><figcaption><p>Sales <strong>2024</strong></p></figcaption></figure>\n',
    );
  });

  it('links write their reference as an href; mentions too', () => {
    expect(
      documentToMarkdown(
        doc(
          paragraph(
            '',
            link(page('p1'), 'guide'),
            ' ',
            link({ kind: 'anchor', anchor: 'x', page: 'p2' }, 'there'),
            ' ',
            link({ kind: 'user', user: 'u1' }, '@Ada'),
            '',
          ),
        ),
      ),
    ).toBe('[guide](/pages/p1) [there](/pages/p2#x) [@Ada](/users/u1)\n');
  });

  it('an inline image is `![alt](src)` within the text, inline math `$$...$$`', () => {
    expect(documentToMarkdown(doc(paragraph('a ', inlineImage(file('i1'), 'icon'), ' b ', inlineMath('x^2'), ' c')))).toBe(
      'a ![icon](/files/i1) b $$x^2$$ c\n',
    );
  });

  it('two formulas in a row are kept apart by an empty comment', () => {
    expect(documentToMarkdown(doc(paragraph('', inlineMath('a'), '', inlineMath('b'), '')))).toBe('$$a$$<!---->$$b$$\n');
  });

  it('a file block is `{% file src %}` with its caption and `{% endfile %}`', () => {
    expect(documentToMarkdown(doc(block('file', [text('Installer', 'italic')], { ref: file('f7') })))).toBe(
      '{% file src="/files/f7" %}\n*Installer*\n{% endfile %}\n',
    );
  });

  it('an embed without caption is one `{% embed url %}` line', () => {
    expect(documentToMarkdown(doc(block('embed', [''], { url: 'https://example.com/v?a=1&b=2' })))).toBe(
      '{% embed url="https://example.com/v?a=1&amp;b=2" %}\n',
    );
  });

  it('an expandable is `<details>` with its title as `<summary>`', () => {
    expect(documentToMarkdown(doc(block('expandable', [paragraph('Body')], { title: 'More <info>' })))).toBe(
      '<details>\n<summary>More &lt;info&gt;</summary>\n\nBody\n\n</details>\n',
    );
  });

  it('tabs are `{% tabs %}` with a `{% tab title %}` per item', () => {
    expect(
      documentToMarkdown(
        doc(block('tabs', [block('tabs-item', [paragraph('npm i')], { title: 'npm' }), block('tabs-item', [], { title: 'say "hi"' })])),
      ),
    ).toBe('{% tabs %}\n{% tab title="npm" %}\nnpm i\n{% endtab %}\n{% tab title="say &quot;hi&quot;" %}\n{% endtab %}\n{% endtabs %}\n');
  });

  it('steppers and columns are `{% stepper %}`/`{% step %}` and `{% columns %}`/`{% column %}`', () => {
    expect(
      documentToMarkdown(
        doc(block('stepper', [block('stepper-step', [paragraph('1')])]), block('columns', [block('column', [paragraph('L')])])),
      ),
    ).toBe(
      '{% stepper %}\n{% step %}\n1\n{% endstep %}\n{% endstepper %}\n{% columns %}\n{% column %}\nL\n{% endcolumn %}\n{% endcolumns %}\n',
    );
  });

  it('a math block is its formula between `$$` lines', () => {
    expect(documentToMarkdown(doc(block('math', [], { formula: 'e^{i\\pi} + 1 = 0' })))).toBe('$$\ne^{i\\pi} + 1 = 0\n$$\n');
  });

  it('a content ref is `{% content-ref url %}` with a link to the same place', () => {
    expect(documentToMarkdown(doc(block('content-ref', [], { ref: page('p4') })))).toBe(
      '{% content-ref url="/pages/p4" %}\n[/pages/p4](/pages/p4)\n{% endcontent-ref %}\n',
    );
  });

  it('an OpenAPI operation is one `{% openapi-operation %}` line, a swagger block wraps its blocks', () => {
    expect(
      documentToMarkdown(
        doc(
          block('openapi-operation', [], { ref: { kind: 'openapi', spec: 'petstore' }, path: '/pets', method: 'get' }),
          block('swagger', [paragraph('Creates')], { src: 'https://example.com/api.json', path: '/pets', method: 'post' }),
        ),
      ),
    ).toBe(
      '{% openapi-operation spec="petstore" path="/pets" method="get" %}\n{% swagger src="https://example.com/api.json" path="/pets" method="post" %}\nCreates\n{% endswagger %}\n',
    );
  });

  it('platform blocks inside list items are indented with the item', () => {
    expect(
      documentToMarkdown(doc(list('list-unordered', [paragraph('Step'), block('hint', [paragraph('Note')], { style: 'info' })]))),
    ).toBe('- Step\n  {% hint style="info" %}\n  Note\n  {% endhint %}\n');
  });

  it('an emoji inline is its character', () => {
    expect(documentToMarkdown(doc(paragraph('ok ', { object: 'inline', type: 'emoji', isVoid: true, data: { code: '1f44d' } }, '')))).toBe(
      'ok 👍\n',
    );
  });
});
