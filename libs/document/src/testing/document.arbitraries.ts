import fc from 'fast-check';
import type { Block, BlockType, ContentRef, DocumentNode, Inline, Leaf, Mark, MarkType, Text } from '../document.model';
import { emptyText, leaf, mark, normalizeInlineContent, normalizeLeaves, normalizeMarks, textOf } from '../document.nodes';
import { BLOCK_CONTENT, HINT_STYLES } from '../document.schema';

/**
 * Documents markdown can express, in normal form (docs/content.md, "Markdown"), for the round-trip
 * properties. What the generators leave out, and why:
 * - a block's text never starts or ends with a line break, and a break is never next to a space:
 *   markdown trims both ends of a line;
 * - table cells have no whitespace at either end (GFM trims cells);
 * - a paragraph has text or a non-image inline: a paragraph of images alone is an images block;
 * - a list item starts with a paragraph (`- ---` is a rule, `- [ ]` only marks a paragraph);
 * - code-marked text has no line break (a code span cannot hold one), nor a backslash in a table
 *   cell (GFM reads `\|` there as a pipe, even in code);
 * - formulas hold no `$`, no `|` and no line break inside inline math; code lines no line break;
 * - emoji and annotations are not generated: markdown writes an emoji as its character and an
 *   annotation as its text.
 */

const ID = fc.stringMatching(/^[A-Za-z0-9]{1,12}$/);
const SLUG = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/);

/** Characters that need escaping somewhere in markdown, with ordinary ones. */
const TEXT_CHARACTERS = [...'abcdefghijklmnopqrstuvwxyzABCXYZ0123456789', ...'*_[]()<>#`\\!|~{}%$&-+.:;"\'/=@^?,', 'é', '中', '🙂'];
const WORD = fc.array(fc.constantFrom(...TEXT_CHARACTERS), { minLength: 1, maxLength: 8 }).map((characters) => characters.join(''));
const PLAIN_WORD = fc.stringMatching(/^[A-Za-z0-9]{1,8}$/);

/** Words joined by one or two spaces, or by a line break (never at either end). */
function phrase(word: fc.Arbitrary<string>, breaks: boolean): fc.Arbitrary<string> {
  const separator = breaks ? fc.constantFrom(' ', ' ', '  ', '\n', ' \n', '\n ') : fc.constantFrom(' ', ' ', '  ');
  return fc
    .tuple(word, fc.array(fc.tuple(separator, word), { maxLength: 4 }))
    .map(([first, rest]) => first + rest.map(([gap, next]) => gap + next).join(''));
}

const COLOR = fc.constantFrom('red', '#00ff00', 'rgb(1, 2, 3)');
const MARK_CHOICES: fc.Arbitrary<Mark>[] = [
  ...(['bold', 'italic', 'strikethrough', 'code', 'keyboard', 'superscript', 'subscript'] as MarkType[]).map((type) =>
    fc.constant(mark(type)),
  ),
  fc
    .record({ color: COLOR, background: fc.option(COLOR, { nil: undefined }) })
    .map(({ color, background }) => mark('color', background ? { color, background } : { color })),
];
const MARKS = fc
  .subarray([0, 1, 2, 3, 4, 5, 6, 7], { maxLength: 3 })
  .chain((indexes) => (indexes.length === 0 ? fc.constant([] as Mark[]) : fc.tuple(...indexes.map((index) => MARK_CHOICES[index]))))
  .map((marks) => normalizeMarks(marks));

const URL_REF: fc.Arbitrary<ContentRef> = fc
  .tuple(fc.constantFrom('https://example.com/', 'http://docs.example.org/a/', 'mailto:someone@example.com?subject='), PLAIN_WORD)
  .map(([base, tail]) => ({ kind: 'url', url: base + tail }));
const PAGE_REF: fc.Arbitrary<ContentRef> = fc
  .tuple(ID, fc.option(ID, { nil: undefined }))
  .map(([page, space]) => (space ? { kind: 'page', page, space } : { kind: 'page', page }));
const FILE_REF: fc.Arbitrary<ContentRef> = fc
  .tuple(ID, fc.option(ID, { nil: undefined }))
  .map(([file, space]) => (space ? { kind: 'file', file, space } : { kind: 'file', file }));
const ANCHOR_REF: fc.Arbitrary<ContentRef> = fc
  .tuple(SLUG, fc.option(ID, { nil: undefined }))
  .map(([anchor, page]) => (page ? { kind: 'anchor', anchor, page } : { kind: 'anchor', anchor }));
const LINK_REF = fc.oneof(
  PAGE_REF,
  FILE_REF,
  ANCHOR_REF,
  URL_REF,
  ID.map((space): ContentRef => ({ kind: 'space', space })),
  ID.map((collection): ContentRef => ({ kind: 'collection', collection })),
);
const IMAGE_REF = fc.oneof(
  FILE_REF,
  URL_REF.map((ref): ContentRef =>
    ref.kind === 'url' ? { kind: 'url', url: ref.url.replace(/^mailto:.*\?subject=/, 'https://cdn.example.com/') + '.png' } : ref,
  ),
);

const FORMULA = fc.stringMatching(/^[a-z0-9^_+=(){}\\][a-z0-9^_+=(){}\\ ]{0,10}[a-z0-9^_+=(){}\\]$/);

type InlinePiece = { kind: 'leaf'; leaf: Leaf } | { kind: 'inline'; inline: Inline };

// Code spans have no line breaks: a break next to code text is not code.
const LEAF = (breaks: boolean) =>
  fc.tuple(phrase(WORD, breaks), MARKS).map(([text, marks]): InlinePiece => ({
    kind: 'leaf',
    leaf: leaf(marks.some((value) => value.type === 'code') ? text.replace(/\n/g, ' ') : text, marks),
  }));
const LINK_TEXT = fc
  .array(fc.tuple(phrase(WORD, false), MARKS), { minLength: 1, maxLength: 2 })
  .map((parts) => textOf(normalizeLeaves(parts.map(([text, marks]) => leaf(text, marks)))));
const LINK: fc.Arbitrary<InlinePiece> = fc
  .tuple(LINK_REF, LINK_TEXT)
  .map(([ref, text]) => ({ kind: 'inline', inline: { object: 'inline', type: 'link', data: { ref }, nodes: [text] } }));
const MENTION: fc.Arbitrary<InlinePiece> = fc.tuple(ID, PLAIN_WORD).map(([user, name]) => ({
  kind: 'inline',
  inline: { object: 'inline', type: 'mention', data: { ref: { kind: 'user', user } }, nodes: [textOf([leaf(`@${name}`)])] },
}));
const INLINE_IMAGE: fc.Arbitrary<InlinePiece> = fc
  .tuple(IMAGE_REF, fc.option(phrase(WORD, false), { nil: undefined }))
  .map(([ref, alt]) => ({
    kind: 'inline',
    inline: { object: 'inline', type: 'inline-image', isVoid: true, data: alt ? { ref, alt } : { ref } },
  }));
const INLINE_MATH: fc.Arbitrary<InlinePiece> = FORMULA.map((formula) => ({
  kind: 'inline',
  inline: { object: 'inline', type: 'inline-math', isVoid: true, data: { formula } },
}));

function assemble(pieces: readonly InlinePiece[]): Array<Text | Inline> {
  return normalizeInlineContent(pieces.map((piece) => (piece.kind === 'leaf' ? textOf([piece.leaf]) : piece.inline)));
}

/** Inline content that starts and ends with text (no whitespace there) and has text somewhere. */
function inlineContent(options: { breaks: boolean; inlines: fc.Arbitrary<InlinePiece>[] }): fc.Arbitrary<Array<Text | Inline>> {
  const piece = fc.oneof({ weight: 3, arbitrary: LEAF(options.breaks) }, ...options.inlines.map((arbitrary) => ({ weight: 1, arbitrary })));
  return fc.tuple(LEAF(options.breaks), fc.array(piece, { maxLength: 4 })).map(([first, rest]) => assemble([first, ...rest]));
}

const PARAGRAPH_CONTENT = inlineContent({ breaks: true, inlines: [LINK, MENTION, INLINE_IMAGE, INLINE_MATH] });
const HEADING_CONTENT = inlineContent({ breaks: true, inlines: [LINK, INLINE_MATH] });
// In a table a code span's `\|` is a pipe: no backslash in code text there.
const withoutCodeBackslash = (text: Text): Text =>
  textOf(
    text.leaves.map((part) => (part.marks.some((value) => value.type === 'code') ? leaf(part.text.replace(/\\/g, '/'), part.marks) : part)),
  );
const CELL_CONTENT = fc
  .option(inlineContent({ breaks: true, inlines: [LINK, INLINE_IMAGE] }), { nil: undefined })
  .map((content) =>
    normalizeInlineContent(
      (content ?? [emptyText()]).map((node) =>
        node.object === 'text' ? withoutCodeBackslash(node) : node.nodes ? { ...node, nodes: node.nodes.map(withoutCodeBackslash) } : node,
      ),
    ),
  );
const CAPTION_CONTENT = inlineContent({ breaks: true, inlines: [LINK] });

function block(type: BlockType, nodes: Array<Block | Inline | Text> | undefined, data?: Record<string, unknown>): Block {
  const kind = BLOCK_CONTENT[type].kind;
  return {
    object: 'block',
    type,
    ...(data && Object.keys(data).length > 0 ? { data } : {}),
    ...(kind === 'void'
      ? { isVoid: true }
      : { nodes: kind === 'inline' ? normalizeInlineContent((nodes ?? []) as Array<Text | Inline>) : (nodes ?? []) }),
  };
}

const PARAGRAPH = PARAGRAPH_CONTENT.map((nodes) => block('paragraph', nodes));
const HEADING = fc
  .tuple(fc.constantFrom<BlockType>('heading-1', 'heading-2', 'heading-3'), HEADING_CONTENT)
  .map(([type, nodes]) => block(type, nodes));
const DIVIDER = fc.constant(block('divider', undefined));
const CODE = fc
  .record({
    lines: fc.array(fc.string({ unit: fc.constantFrom(...TEXT_CHARACTERS, ' ', ' ', '\t'), maxLength: 12 }), {
      minLength: 1,
      maxLength: 3,
    }),
    syntax: fc.option(fc.constantFrom('js', 'typescript', 'bash', 'c++'), { nil: undefined }),
    title: fc.option(phrase(WORD, false), { nil: undefined }),
  })
  .map(({ lines, syntax, title }) =>
    block(
      'code',
      lines.map((line) => block('code-line', [textOf([leaf(line)])])),
      { ...(syntax ? { syntax } : {}), ...(title !== undefined ? { title } : {}) },
    ),
  );
const TABLE = fc
  .tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 2 }))
  .chain(([width, bodyRows]) =>
    fc.tuple(
      fc.array(fc.array(CELL_CONTENT, { minLength: width, maxLength: width }), { minLength: bodyRows + 1, maxLength: bodyRows + 1 }),
      fc.option(fc.array(fc.constantFrom('left', 'center', 'right', null), { minLength: width, maxLength: width }), { nil: undefined }),
    ),
  )
  .map(([rows, align]) =>
    block(
      'table',
      rows.map((cells, index) =>
        block(
          'table-row',
          cells.map((cell) => block('table-cell', cell)),
          index === 0 ? { header: true } : undefined,
        ),
      ),
      align && align.some((value) => value !== null) ? { align } : undefined,
    ),
  );
const IMAGE = fc.record({
  ref: IMAGE_REF,
  alt: fc.option(phrase(WORD, false), { nil: undefined }),
  caption: fc.option(CAPTION_CONTENT, { nil: undefined }),
});
const IMAGES = fc.array(IMAGE, { minLength: 1, maxLength: 2 }).map((images) =>
  block(
    'images',
    images.map(({ ref, alt, caption }) => block('image', caption ?? [emptyText()], alt ? { ref, alt } : { ref })),
  ),
);
const FILE = fc
  .tuple(FILE_REF, fc.option(CAPTION_CONTENT, { nil: undefined }))
  .map(([ref, caption]) => block('file', caption ?? [emptyText()], { ref }));
const EMBED = fc
  .tuple(URL_REF, fc.option(CAPTION_CONTENT, { nil: undefined }))
  .map(([ref, caption]) => block('embed', caption ?? [emptyText()], { url: (ref as { url: string }).url }));
const MATH = fc.array(FORMULA, { minLength: 1, maxLength: 2 }).map((lines) => block('math', undefined, { formula: lines.join('\n') }));
const CONTENT_REF = fc.oneof(PAGE_REF, URL_REF).map((ref) => block('content-ref', undefined, { ref }));
const OPENAPI = fc
  .record({ spec: SLUG, path: fc.constantFrom('/pets', '/pets/{id}'), method: fc.constantFrom('get', 'post') })
  .map(({ spec, path, method }) => block('openapi-operation', undefined, { ref: { kind: 'openapi', spec }, path, method }));
const TITLE = phrase(WORD, false);

/** Flow blocks nested at most `maxDepth` containers deep. */
export function flowBlock(maxDepth = 3): fc.Arbitrary<Block> {
  const { flow } = fc.letrec<{ flow: Block; blocks: Block[] }>((tie) => {
    const blocks = (min: number) => fc.array(tie('flow'), { minLength: min, maxLength: 2 });
    const items = <T>(arbitrary: fc.Arbitrary<T>) => fc.array(arbitrary, { minLength: 1, maxLength: 2 });
    return {
      blocks: blocks(0),
      flow: fc.oneof(
        { maxDepth, depthIdentifier: 'flow' },
        { weight: 6, arbitrary: PARAGRAPH },
        { weight: 2, arbitrary: HEADING },
        DIVIDER,
        CODE,
        TABLE,
        IMAGES,
        FILE,
        EMBED,
        MATH,
        CONTENT_REF,
        OPENAPI,
        fc
          .tuple(
            fc.constantFrom<BlockType>('list-unordered', 'list-ordered', 'list-tasks'),
            items(fc.tuple(PARAGRAPH, fc.array(tie('flow'), { maxLength: 1 }), fc.boolean())),
          )
          .map(([type, entries]) =>
            block(
              type,
              entries.map(([first, rest, checked]) =>
                block('list-item', [first, ...rest], type === 'list-tasks' ? { checked } : undefined),
              ),
            ),
          ),
        fc.tuple(fc.constantFrom(...HINT_STYLES), blocks(0)).map(([style, children]) => block('hint', children, { style })),
        blocks(1).map((children) => block('blockquote', children)),
        fc.tuple(TITLE, blocks(0)).map(([title, children]) => block('expandable', children, { title })),
        items(fc.tuple(TITLE, blocks(0))).map((tabs) =>
          block(
            'tabs',
            tabs.map(([title, children]) => block('tabs-item', children, { title })),
          ),
        ),
        items(blocks(0)).map((steps) =>
          block(
            'stepper',
            steps.map((children) => block('stepper-step', children)),
          ),
        ),
        items(blocks(0)).map((columns) =>
          block(
            'columns',
            columns.map((children) => block('column', children)),
          ),
        ),
        fc
          .tuple(URL_REF, fc.constantFrom('/pets', '/users'), fc.constantFrom('get', 'put'), blocks(0))
          .map(([ref, path, method, children]) => block('swagger', children, { src: (ref as { url: string }).url, path, method })),
      ),
    };
  });
  return flow;
}

export function markdownDocument(maxDepth = 3): fc.Arbitrary<DocumentNode> {
  return fc.array(flowBlock(maxDepth), { maxLength: 5 }).map((nodes): DocumentNode => ({ object: 'document', data: {}, nodes }));
}

/** Lines of markdown, ordinary and platform syntax mixed as a writer (or a fuzzer) might: for the stability property. */
export function markdownSource(): fc.Arbitrary<string> {
  const inline = fc
    .array(
      fc.constantFrom(
        'a',
        'b c',
        '*',
        '**',
        '_',
        '~~',
        '`',
        '[x](/pages/p1)',
        '![i](/files/f1)',
        '<kbd>',
        '</kbd>',
        '$$x$$',
        '{%',
        '%}',
        '\\',
        '<',
        '&amp;',
        '|',
        '@',
        'www.example.com',
        ' ',
        '<mark style="color:red;">',
        '</mark>',
        '<sup>',
        '</sup>',
        '<br>',
        '<img src="/files/f3" alt="z">',
        '[@U](/users/u1)',
        '[j](javascript:alert(1))',
        '<a href="/pages/p3">',
        '</a>',
        '$',
        '#',
      ),
      {
        minLength: 1,
        maxLength: 6,
      },
    )
    .map((parts) => parts.join(''));
  const line = fc.oneof(
    { weight: 6, arbitrary: inline },
    { weight: 3, arbitrary: fc.constant('') },
    fc
      .tuple(
        fc.constantFrom('- ', '1. ', '* ', '- [ ] ', '- [x] ', '> ', '> > ', '# ', '## ', '#### ', '  - ', '    ', '  ', '\t', '3) '),
        inline,
      )
      .map(([prefix, text]) => prefix + text),
    fc.constantFrom(
      '{% hint style="info" %}',
      '{% endhint %}',
      '{% tabs %}',
      '{% tab title="A" %}',
      '{% endtab %}',
      '{% endtabs %}',
      '{% embed url="https://example.com/v" %}',
      '{% file src="/files/f1" %}',
      '{% endfile %}',
      '{% content-ref url="/pages/p1" %}',
      '{% endcontent-ref %}',
      '{% unknown %}',
      '{% stepper %}',
      '{% step %}',
      '{% endstep %}',
      '{% endstepper %}',
      '$$',
      '<details>',
      '<summary>S</summary>',
      '</details>',
      '```js',
      '```',
      '~~~',
      '| a | b |',
      '| - | - |',
      '---',
      '***',
      '<figure><img src="/files/f2" alt="A"><figcaption><p>C</p></figcaption></figure>',
      '<!-- note -->',
      '<div>html</div>',
      '[ref]: /pages/p2',
      'see [ref]',
      '  {% hint style="danger" %}',
      '  {% endhint %}',
      '> {% hint %}',
      '> {% endhint %}',
      '  $$',
      '  ```',
      '{% code title="t" %}',
      '{% endcode %}',
      '<details><summary>T</summary>',
      '{% columns %}',
      '{% column %}',
      '{% endcolumn %}',
      '{% endcolumns %}',
      '{% openapi-operation spec="s" path="/p" method="get" %}',
      '{% swagger src="https://e.com/s.json" path="/p" method="get" %}',
      '{% endswagger %}',
      '{% embed url="javascript:x" %}',
      '{% endembed %}',
      '---\ntitle: T\n---',
    ),
  );
  return fc.array(line, { maxLength: 14 }).map((lines) => lines.join('\n'));
}
