import { crc32, deflateSync, inflateSync } from 'node:zlib';
import { PDFDocument } from 'pdf-lib';
import type { Block, ContentRef, DocumentNode } from './document.model';
import { renderPdf, type PdfImage, type PdfInput, type PdfPage } from './document-pdf';
import { block, doc, file, image, inlineImage, inlineMath, leaves, link, list, paragraph, text, url } from './testing/document.builders';

/** A 1x1 RGBA PNG (red, opaque). */
const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** An 8x8 grey baseline JPEG (one DC and one AC code: every block is flat). */
const JPEG_8X8 = Buffer.from(
  '/9j/2wBDAAEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQH/wAALCAAIAAgBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAAAP/EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AP//Z',
  'base64',
);

const CREATED = new Date('2024-01-02T03:04:05Z');

/** A PNG of the given header fields and (already filtered) scanlines. */
function pngOf(
  width: number,
  height: number,
  depth: number,
  colorType: number,
  interlace: number,
  scanlines: number[],
  extra: Array<[string, Buffer]> = [],
): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const framed = Buffer.alloc(body.length + 8);
    framed.writeUInt32BE(data.length, 0);
    body.copy(framed, 4);
    framed.writeUInt32BE(crc32(body), body.length + 4);
    return framed;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([depth, colorType, 0, 0, interlace], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    ...extra.map(([type, data]) => chunk(type, data)),
    chunk('IDAT', deflateSync(Buffer.from(scanlines))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The pixels of the first image XObject: its stream inflated (scanlines, each after a filter byte). */
function embeddedPixels(pdf: Buffer): number[] {
  const source = pdf.toString('latin1');
  const image = source.indexOf('/Subtype /Image');
  const start = source.indexOf('stream\n', image) + 'stream\n'.length;
  return [...inflateSync(pdf.subarray(start, source.indexOf('\nendstream', start)))];
}

function pages(...documents: Array<DocumentNode | null>): PdfPage[] {
  return documents.map((document, index) => ({ title: `Page ${index + 1}`, depth: 0, document }));
}

function input(pageList: PdfPage[], images: Record<string, PdfImage> = {}): PdfInput {
  return {
    title: 'Guide',
    pages: pageList,
    image: async (ref: ContentRef) => (ref.kind === 'file' ? (images[ref.file] ?? null) : null),
  };
}

async function pageCount(pdf: Buffer): Promise<number> {
  return (await PDFDocument.load(pdf)).getPageCount();
}

/** The text drawn by an uncompressed PDF: every TJ array's hex strings decoded (WinAnsi read as Latin-1), one line per array. */
function drawnText(pdf: Buffer): string {
  const source = pdf.toString('latin1');
  const lines: string[] = [];
  for (const [, array] of source.matchAll(/\[((?:<[0-9a-f]*>\s*-?[\d.]*\s*)+)\]\s*TJ/g)) {
    lines.push([...array.matchAll(/<([0-9a-f]*)>/g)].map(([, hex]) => Buffer.from(hex, 'hex').toString('latin1')).join(''));
  }
  return lines.join('\n');
}

/** All content streams of a PDF, inflated where they are deflated. */
function contentStreams(pdf: Buffer): string {
  const source = pdf.toString('latin1');
  let all = '';
  for (const match of source.matchAll(/stream\r?\n/g)) {
    const start = match.index + match[0].length;
    const end = source.indexOf('endstream', start);
    const bytes = pdf.subarray(start, end);
    try {
      all += inflateSync(bytes).toString('latin1');
    } catch {
      all += bytes.toString('latin1');
    }
  }
  return all;
}

function nestedList(levels: number): Block {
  let current = list('list-unordered', [paragraph(`level ${levels}`)]);
  for (let level = levels - 1; level >= 1; level--) current = list('list-unordered', [paragraph(`level ${level}`), current]);
  return current;
}

describe('renderPdf', () => {
  it('writes a PDF that pdf-lib loads', async () => {
    const pdf = await renderPdf(input(pages(doc(paragraph('Hello')))), { creationDate: CREATED });

    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    await expect(PDFDocument.load(pdf)).resolves.toBeDefined();
  });

  it('N short pages make N PDF pages, the title line sharing the first one', async () => {
    const pdf = await renderPdf(input(pages(doc(paragraph('One')), doc(paragraph('Two')), null, doc(paragraph('Four')))));

    expect(await pageCount(pdf)).toBe(4);
  });

  it('no pages at all is one PDF page with the title', async () => {
    const pdf = await renderPdf(input([]), { compress: false });

    expect(await pageCount(pdf)).toBe(1);
    expect(drawnText(pdf)).toContain('Guide');
  });

  it('a long page flows onto more PDF pages', async () => {
    const long = doc(
      ...Array.from({ length: 150 }, (_, index) => paragraph(`Paragraph ${index} of a page that does not fit on one sheet of paper.`)),
    );

    const pdf = await renderPdf(input(pages(long, doc(paragraph('Next')))));

    expect(await pageCount(pdf)).toBeGreaterThan(2);
  });

  it('the same input and creation date give the same bytes', async () => {
    const body = doc(paragraph('Stable'));

    const first = await renderPdf(input(pages(body)), { creationDate: CREATED });
    const second = await renderPdf(input(pages(body)), { creationDate: CREATED });

    expect(first.equals(second)).toBe(true);
  });

  it('titles, headings and marked text are drawn', async () => {
    const body = doc(
      block('heading-1', ['Install']),
      block('heading-2', ['Requirements']),
      block('heading-3', ['Optional']),
      paragraph(leaves(['plain '], ['bold', 'bold'], [' '], ['italic', 'italic'], [' '], ['code', 'code'])),
      paragraph(
        'See ',
        link(url('https://example.com/docs'), 'the docs'),
        ' and ',
        link({ kind: 'page', page: 'p1' }, 'another page'),
        '.',
      ),
    );

    const pdf = await renderPdf(input(pages(body)), { compress: false });
    const drawn = drawnText(pdf);

    for (const expected of [
      'Guide',
      'Page 1',
      'Install',
      'Requirements',
      'Optional',
      'plain ',
      'bold',
      'italic',
      'code',
      'the docs',
      'another page',
    ]) {
      expect(drawn).toContain(expected);
    }
    expect(pdf.toString('latin1')).toContain('/URI (https://example.com/docs)');
    for (const font of ['Helvetica', 'Helvetica-Bold', 'Helvetica-Oblique', 'Courier'])
      expect(pdf.toString('latin1')).toContain(`/BaseFont /${font}\n`);
  });

  it('ordered, unordered and task lists are drawn with their numbers', async () => {
    const body = doc(
      list('list-ordered', [paragraph('first')], [paragraph('second')]),
      list('list-unordered', [paragraph('bullet'), list('list-unordered', [paragraph('nested bullet')])]),
      block('list-tasks', [
        block('list-item', [paragraph('done')], { checked: true }),
        block('list-item', [paragraph('to do')], { checked: false }),
      ]),
    );

    const drawn = drawnText(await renderPdf(input(pages(body)), { compress: false }));

    for (const expected of ['1.', 'first', '2.', 'second', 'bullet', 'nested bullet', 'done', 'to do']) expect(drawn).toContain(expected);
  });

  it('code blocks are drawn in Courier, line by line, on a grey background', async () => {
    const body = doc(
      block('code', [block('code-line', ['const a = 1;']), block('code-line', ['\tif (a) return;'])], { syntax: 'javascript' }),
    );

    const pdf = await renderPdf(input(pages(body)), { compress: false });

    expect(drawnText(pdf)).toContain('const a = 1;');
    expect(drawnText(pdf)).toContain('    if (a) return;');
    expect(pdf.toString('latin1')).toContain('/BaseFont /Courier\n');
    // The background: a filled rectangle in #f2f3f5.
    expect(contentStreams(pdf)).toMatch(/0\.949\d* 0\.952\d* 0\.960\d* scn/);
  });

  it('tables, hints, quotes, math, dividers and containers are drawn', async () => {
    const body = doc(
      block('table', [
        block('table-row', [block('table-cell', ['Name']), block('table-cell', ['Value'])]),
        block('table-row', [block('table-cell', ['alpha']), block('table-cell', ['42'])]),
      ]),
      block('hint', [paragraph('A hint')], { style: 'info' }),
      block('blockquote', [paragraph('A quote')]),
      block('math', [], { formula: 'e = mc^2' }),
      paragraph('Inline ', inlineMath('x^2')),
      block('divider'),
      block('expandable', [paragraph('Hidden text')], { title: 'More' }),
      block('tabs', [block('tabs-item', [paragraph('Tab body')], { title: 'First tab' })]),
      block('stepper', [block('stepper-step', [paragraph('Step body')])]),
      block('columns', [block('column', [paragraph('Left')]), block('column', [paragraph('Right')])]),
    );

    const drawn = drawnText(await renderPdf(input(pages(body)), { compress: false }));

    for (const expected of [
      'Name',
      'Value',
      'alpha',
      '42',
      'A hint',
      'A quote',
      'e = mc^2',
      'x^2',
      'More',
      'Hidden text',
      'First tab',
      'Tab body',
      'Step body',
      'Left',
      'Right',
    ]) {
      expect(drawn).toContain(expected);
    }
  });

  it('a PNG image is embedded', async () => {
    const body = doc(block('images', [image(file('logo'), 'Logo')]));

    const pdf = await renderPdf(input(pages(body), { logo: { bytes: PNG_1X1, contentType: 'image/png' } }));

    expect(pdf.toString('latin1')).toMatch(/\/Subtype \/Image/);
  });

  it('a JPEG image is embedded as it is', async () => {
    const pdf = await renderPdf(
      input(pages(doc(image(file('photo'), 'Photo'))), { photo: { bytes: JPEG_8X8, contentType: 'image/jpeg' } }),
    );

    expect(pdf.toString('latin1')).toMatch(/\/Subtype \/Image/);
    expect(pdf.toString('latin1')).toContain('/Filter /DCTDecode');
    expect(pdf.includes(JPEG_8X8)).toBe(true);
  });

  it('a PNG is decoded (interlacing, palettes, transparency) and embedded as plain 8-bit pixels over white', async () => {
    // 2x2, palette of black and red, red half transparent, Adam7: (0,0), then (1,0), then row 1.
    const palette: [string, Buffer] = ['PLTE', Buffer.from([0, 0, 0, 255, 0, 0])];
    const alpha: [string, Buffer] = ['tRNS', Buffer.from([255, 128])];
    const png = pngOf(2, 2, 8, 3, 1, [0, 0, 0, 1, 0, 0, 0], [palette, alpha]);

    const pdf = await renderPdf(input(pages(doc(image(file('dots')))), { dots: { bytes: png, contentType: 'image/png' } }));

    // Rows of RGB after a filter byte: black, half-transparent red over white, black, black.
    expect(embeddedPixels(pdf)).toEqual([0, 0, 0, 0, 255, 127, 127, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('an image that is missing, of another type or corrupt is a placeholder', async () => {
    const body = doc(
      image(file('missing'), 'Missing'),
      image(file('gif'), 'Animated'),
      image(file('broken'), 'Broken'),
      paragraph('Inline ', inlineImage(url('https://example.com/a.png'), 'Icon')),
    );
    const images = {
      gif: { bytes: Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1'), contentType: 'image/gif' },
      broken: { bytes: Buffer.concat([PNG_1X1.subarray(0, 40), Buffer.alloc(20, 0xff)]), contentType: 'image/png' },
    };

    const pdf = await renderPdf(input(pages(body), images), { compress: false });

    expect(pdf.toString('latin1')).not.toMatch(/\/Subtype \/Image/);
    for (const name of ['Missing', 'Animated', 'Broken', 'Icon']) expect(drawnText(pdf)).toContain(`[image: ${name}]`);
  });

  it('image() failing is a placeholder too', async () => {
    const pdf = await renderPdf(
      { title: 'T', pages: pages(doc(image(file('x'), 'X'))), image: () => Promise.reject(new Error('store down')) },
      { compress: false },
    );

    expect(drawnText(pdf)).toContain('[image: X]');
  });

  it('emoji, CJK and a lone surrogate become question marks instead of throwing', async () => {
    const body = doc(
      paragraph('Emoji \u{1F44D}\u{1F3FD} CJK \u4E2D\u6587 lone \uD800 end'),
      block('code', [block('code-line', ['\uDC00\u{1F600}'])]),
    );
    const hostile: PdfInput = { ...input([{ title: 'T\u{1F600}\uD800', depth: 0, document: body }]), title: '\uDFFF title' };

    const pdf = await renderPdf(hostile, { compress: false });

    expect(await pageCount(pdf)).toBe(1);
    expect(drawnText(pdf)).toContain('Emoji ?? CJK ?? lone ? end');
  });

  it('Latin-1 and WinAnsi characters are kept', async () => {
    const drawn = drawnText(await renderPdf(input(pages(doc(paragraph('Café – “quoted” €5 naïve')))), { compress: false }));

    // WinAnsi bytes read as Latin-1: the dash, quotes and euro sign are in the 0x80-0x9F row.
    expect(drawn).toContain('Caf\xe9 \x96 \x93quoted\x94 \x805 na\xefve');
  });

  it('200 levels of nested lists do not throw', async () => {
    const pdf = await renderPdf(input(pages(doc(nestedList(200)))), { compress: false });

    expect(await pageCount(pdf)).toBeGreaterThanOrEqual(1);
    expect(drawnText(pdf)).toContain('level 1');
  });

  it('hostile shapes (missing nodes, unknown types, a word of 200,000 letters) render', async () => {
    const body = {
      object: 'document',
      data: {},
      nodes: [
        { object: 'block', type: 'mystery', nodes: [text('unknown block text')] },
        { object: 'block', type: 'paragraph' },
        {
          object: 'block',
          type: 'list-ordered',
          data: { start: 1e300 },
          nodes: [{ object: 'block', type: 'list-item', nodes: 'not an array' }],
        },
        null,
        paragraph('x'.repeat(200_000)),
      ],
    } as unknown as DocumentNode;

    const pdf = await renderPdf(input(pages(body)), { compress: false });

    expect(drawnText(pdf)).toContain('unknown block text');
    expect(await pageCount(pdf)).toBeGreaterThan(1);
  }, 30_000);
});
