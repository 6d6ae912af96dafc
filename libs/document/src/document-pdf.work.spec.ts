import { PDFDocument } from 'pdf-lib';
import { DomainError } from '#platform/errors';
import type { DocumentNode } from './document.model';
import { documentNodeCount, PDF_INPUT_LIMITS, pdfImageFiles, pdfTooLarge } from './document-pdf';
import { pdfImageFilesTask, renderPdfTask, type PdfRun } from './document-pdf.work';
import { doc, file, image, paragraph, url } from './testing/document.builders';

/** A 1x1 RGBA PNG (red, opaque). */
const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

const stored = (document: DocumentNode) => new Uint8Array(Buffer.from(JSON.stringify(document)));

function run(pages: Array<DocumentNode | Uint8Array | null>, images: PdfRun['images'] = []): PdfRun {
  return {
    title: 'Guide',
    creationDate: '2026-01-02T03:04:05.000Z',
    pages: pages.map((page, index) => ({
      title: `Page ${index + 1}`,
      depth: 0,
      document: page === null || page instanceof Uint8Array ? page : stored(page),
    })),
    images,
  };
}

describe('the size of a PDF, checked before it is generated', () => {
  it('given pages, bytes and nodes within the limits, then nothing to refuse', () => {
    expect(
      pdfTooLarge({ pages: PDF_INPUT_LIMITS.pages, documentBytes: PDF_INPUT_LIMITS.documentBytes, nodes: PDF_INPUT_LIMITS.nodes }),
    ).toBeNull();
  });

  it('given one page more than the limit, then a refusal naming the count and the way out', () => {
    expect(pdfTooLarge({ pages: PDF_INPUT_LIMITS.pages + 1 })).toBe(
      `the PDF would have ${PDF_INPUT_LIMITS.pages + 1} pages, over the limit of ${PDF_INPUT_LIMITS.pages}: ask for the PDF of a page and its subpages (page=<id>)`,
    );
  });

  it('given bodies over the byte limit or the node limit, then a refusal naming which', () => {
    expect(pdfTooLarge({ documentBytes: PDF_INPUT_LIMITS.documentBytes + 1 })).toMatch(/bytes of content, over the limit/);
    expect(pdfTooLarge({ nodes: PDF_INPUT_LIMITS.nodes + 1 })).toMatch(/nodes of content, over the limit/);
  });

  it('counts every block, inline and text of a body, and stops counting past the limit', () => {
    const body = doc(paragraph('a'), paragraph('b'), image(file('f1')));
    // 3 blocks, each with one text
    expect(documentNodeCount(body)).toBe(6);
    expect(documentNodeCount(body, 2)).toBe(3);
    expect(documentNodeCount(null)).toBe(0);
    expect(documentNodeCount({ object: 'document', nodes: 'not a list' } as unknown as DocumentNode)).toBe(0);
  });
});

describe('the images a PDF needs', () => {
  it('are the files image blocks name, each once, in the order of the pages; URLs are never fetched', () => {
    const first = doc(image(file('a')), image(url('https://example.com/x.png')), image(file('b')));
    const second = doc(image(file('b')), image(file('c')));
    expect(pdfImageFiles([first, null, second])).toEqual(['a', 'b', 'c']);
  });
});

describe('the PDF tasks (run on the untrusted-work pool)', () => {
  it('renders pages from their stored bytes, one PDF page each, the same bytes for the same input', async () => {
    const input = run([doc(paragraph('one')), doc(paragraph('two')), null]);
    const bytes = await renderPdfTask(input);
    expect((await PDFDocument.load(bytes)).getPageCount()).toBe(3);
    expect(Buffer.from(await renderPdfTask(input)).equals(Buffer.from(bytes))).toBe(true);
  });

  it('draws an image from the bytes it is handed', async () => {
    const bytes = await renderPdfTask(
      run([doc(image(file('dot')))], [{ file: 'dot', bytes: new Uint8Array(PNG_1X1), contentType: 'image/png' }]),
    );
    expect(Buffer.from(bytes).toString('latin1')).toContain('/Subtype /Image');
  });

  it('draws a page whose stored body is not a document with its title only', async () => {
    const bytes = await renderPdfTask(
      run([new Uint8Array(Buffer.from('{"object":"page-node"}')), new Uint8Array(Buffer.from('not json'))]),
    );
    expect((await PDFDocument.load(bytes)).getPageCount()).toBe(2);
  });

  it('refuses with 422 bodies that hold more nodes than a PDF may, before rendering', async () => {
    // Half the limit in each of two bodies, then one node more.
    const wide = {
      object: 'document',
      data: {},
      nodes: new Array(PDF_INPUT_LIMITS.nodes / 2).fill({ object: 'text', leaves: [] }),
    } as DocumentNode;
    const refused = renderPdfTask(run([wide, wide, doc(paragraph('one more'))]));
    await expect(refused).rejects.toBeInstanceOf(DomainError);
    await expect(refused).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/nodes of content, over the limit/) });
    expect(() => pdfImageFilesTask({ documents: [stored(wide), stored(wide), stored(doc(paragraph('one more')))] })).toThrow(
      /nodes of content/,
    );
  });

  it('answers the image files of stored bodies', () => {
    expect(pdfImageFilesTask({ documents: [stored(doc(image(file('a')))), null] })).toEqual(['a']);
  });
});
