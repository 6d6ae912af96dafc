import { PDFDocument } from 'pdf-lib';
import { DomainError } from '#platform/errors';
import { WorkBudgetExceeded, type TaskBudget, type UntrustedTask, type UntrustedWork } from '#platform/untrusted-work/untrusted-work';
import { MemoryReadStore } from '#read-store/memory/memory-read-store';
import { CONTENT_PDFS, ContentPdfs, pdfKey, removeSpacePdfs, type ContentPdfDoc } from './content-pdfs';
import { CONTENT_REVISIONS, type RevisionDoc } from './content.projections';
import { ContentTrees } from './content.trees';
import { doc, edit, NOW, treeFixture, type TreeFixture } from './tree/testing/tree-fixtures';
import { RevisionTree } from './tree/revision-tree';

/** A 1x1 RGBA PNG (red, opaque). */
const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** The pool's tasks run on this thread, each counted by what it does; `refuse` makes the next render fail as given. */
class CountingWork implements UntrustedWork {
  readonly runs: string[] = [];
  refuse: Error | undefined;
  async run<Input, Result>(task: UntrustedTask<Input, Result>, input: Input, _budget?: TaskBudget): Promise<Result> {
    this.runs.push(task.what);
    if (this.refuse && task.what === 'rendering the PDF') {
      const error = this.refuse;
      this.refuse = undefined;
      throw error;
    }
    const exported = (require(task.module) as Record<string, (input: Input) => Result | Promise<Result>>)[task.exportName];
    return exported(input);
  }
  renders(): number {
    return this.runs.filter((what) => what === 'rendering the PDF').length;
  }
}

describe('PDFs of revisions (rendered once, then served as stored)', () => {
  let fixture: TreeFixture;
  let reads: MemoryReadStore;
  let work: CountingWork;
  let pdfs: ContentPdfs;

  async function revision(id: string, spaceId: string, change: Parameters<typeof edit>[2]): Promise<void> {
    const { commit } = await edit(fixture.store, RevisionTree.empty(), change);
    const doc: RevisionDoc = {
      _id: id,
      spaceId,
      parents: [],
      revisionType: 'edits',
      tree: commit.rootHash,
      createdAt: NOW,
      createdBy: null,
      source: { kind: 'initial' },
      sequence: 0,
    } as unknown as RevisionDoc;
    await reads.collection<RevisionDoc>(CONTENT_REVISIONS).put(doc);
  }

  const twoPages = (editor: Parameters<Parameters<typeof edit>[2]>[0]) => {
    editor.insertPage({ id: 'p1', type: 'document', attributes: { title: 'One' }, document: doc('one'), into: null, now: NOW });
    editor.insertPage({ id: 'p2', type: 'document', attributes: { title: 'Two' }, document: doc('two'), into: 'p1', now: NOW });
  };

  beforeEach(async () => {
    fixture = await treeFixture();
    reads = new MemoryReadStore();
    work = new CountingWork();
    pdfs = new ContentPdfs(reads, new ContentTrees(fixture.blobs), work);
    await revision('r1', 's1', twoPages);
  });
  afterEach(() => fixture.cleanup());

  it('given a revision, when its PDF is asked for twice, then it is rendered once and the second answer is the stored bytes', async () => {
    const first = await pdfs.pdf('s1', 'r1', { title: 'Proposal' });
    const second = await pdfs.pdf('s1', 'r1', { title: 'Proposal' });
    expect(work.renders()).toBe(1);
    expect(second.equals(first)).toBe(true);
    expect((await PDFDocument.load(first)).getPageCount()).toBe(2);
    const stored = await reads.collection<ContentPdfDoc>(CONTENT_PDFS).get(pdfKey('s1', 'r1', { title: 'Proposal' }));
    expect(stored).toMatchObject({ spaceId: 's1', revisionId: 'r1', size: first.length });
    expect((await fixture.blobs.read(stored!.hash)).equals(first)).toBe(true);
  });

  it('given two asks at once, then one render serves both', async () => {
    const [first, second] = await Promise.all([pdfs.pdf('s1', 'r1', { title: 'Proposal' }), pdfs.pdf('s1', 'r1', { title: 'Proposal' })]);
    expect(work.renders()).toBe(1);
    expect(second.equals(first)).toBe(true);
  });

  it('given the same revision under another title, or of one page, then each is a PDF of its own', async () => {
    await pdfs.pdf('s1', 'r1', { title: 'Proposal' });
    await pdfs.pdf('s1', 'r1', { title: 'Renamed' });
    const subtree = await pdfs.pdf('s1', 'r1', { title: 'Proposal', page: 'p1' });
    const alone = await pdfs.pdf('s1', 'r1', { title: 'Proposal', page: 'p1', only: true });
    expect(work.renders()).toBe(4);
    expect((await PDFDocument.load(subtree)).getPageCount()).toBe(2);
    expect((await PDFDocument.load(alone)).getPageCount()).toBe(1);
    expect(
      new Set([
        pdfKey('s1', 'r1', { title: 'a' }),
        pdfKey('s1', 'r1', { title: 'b' }),
        pdfKey('s1', 'r1', { title: 'a', page: 'p1' }),
        pdfKey('s1', 'r1', { title: 'a', page: 'p1', only: true }),
      ]).size,
    ).toBe(4);
    // `only` without a page names the same PDF as without it.
    expect(pdfKey('s1', 'r1', { title: 'a', only: true })).toBe(pdfKey('s1', 'r1', { title: 'a' }));
  });

  it('given a render over its budget, then its 422 comes back, nothing is stored, and the next ask renders', async () => {
    work.refuse = new WorkBudgetExceeded('time', 'rendering the PDF took longer than its budget of 10 s');
    await expect(pdfs.pdf('s1', 'r1', { title: 'Proposal' })).rejects.toMatchObject({
      status: 422,
      message: 'rendering the PDF took longer than its budget of 10 s',
    });
    expect(await reads.collection(CONTENT_PDFS).count()).toBe(0);
    await pdfs.pdf('s1', 'r1', { title: 'Proposal' });
    expect(work.renders()).toBe(2);
  });

  it('given a revision of another space or a page not in it, then 404 and nothing rendered', async () => {
    await expect(pdfs.pdf('s2', 'r1', { title: 'x' })).rejects.toMatchObject({ status: 404, message: 'no revision r1 in space s2' });
    await expect(pdfs.pdf('s1', 'missing', { title: 'x' })).rejects.toBeInstanceOf(DomainError);
    await expect(pdfs.pdf('s1', 'r1', { title: 'x', page: 'p9' })).rejects.toMatchObject({
      status: 404,
      message: 'no page p9 in revision r1',
    });
    expect(work.runs).toEqual([]);
  });

  it('given a stored PDF whose blob is gone, then it is rendered again', async () => {
    const first = await pdfs.pdf('s1', 'r1', { title: 'Proposal' });
    const stored = await reads.collection<ContentPdfDoc>(CONTENT_PDFS).get(pdfKey('s1', 'r1', { title: 'Proposal' }));
    await fixture.blobs.delete(stored!.hash);
    const again = await pdfs.pdf('s1', 'r1', { title: 'Proposal' });
    expect(work.renders()).toBe(2);
    // The revision's creation date makes the PDF: the same bytes again.
    expect(again.equals(first)).toBe(true);
  });

  it('given pages that show a file as an image, then the file’s bytes are handed to the render', async () => {
    const { hash } = await fixture.blobs.put(PNG_1X1);
    await revision('r2', 's1', (editor) => {
      editor.insertFile({ id: 'dot', name: 'dot.png', contentType: 'image/png', size: PNG_1X1.length, hash, createdAt: NOW });
      editor.insertPage({
        id: 'p1',
        type: 'document',
        attributes: { title: 'Pictured' },
        document: {
          object: 'document',
          data: {},
          nodes: [
            {
              object: 'block',
              type: 'image',
              data: { ref: { kind: 'file', file: 'dot' } },
              nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: '', marks: [] }] }],
            },
          ],
        },
        into: null,
        now: NOW,
      });
    });
    const pdf = await pdfs.pdf('s1', 'r2', { title: 'Pictured' });
    expect(work.runs).toEqual(["reading the PDF's pages", 'rendering the PDF']);
    expect(pdf.toString('latin1')).toContain('/Subtype /Image');
  });

  it('given a purged space, then its PDFs and their blobs are removed, and a PDF of another space with the same bytes keeps its blob', async () => {
    const pdf = await pdfs.pdf('s1', 'r1', { title: 'Proposal' });
    const { hash } = (await reads.collection<ContentPdfDoc>(CONTENT_PDFS).get(pdfKey('s1', 'r1', { title: 'Proposal' })))!;
    await reads
      .collection<ContentPdfDoc>(CONTENT_PDFS)
      .put({ _id: 'other', spaceId: 's2', revisionId: 'r9', hash, size: pdf.length, createdAt: NOW });
    await removeSpacePdfs('s1', reads, fixture.blobs);
    expect(await reads.collection(CONTENT_PDFS).count({ spaceId: 's1' })).toBe(0);
    expect(await fixture.blobs.stat(hash)).not.toBeNull();
    await removeSpacePdfs('s2', reads, fixture.blobs);
    expect(await fixture.blobs.stat(hash)).toBeNull();
    await removeSpacePdfs('s2', reads, fixture.blobs);
  });
});
