import fc from 'fast-check';
import type { Block, DocumentNode } from './document.model';
import { mergeDocuments, mergeKeySequences, type DocumentConflict, type DocumentMergeResult } from './document-merge';
import { block, doc, leaves, paragraph, text } from './testing/document.builders';
import { markdownDocument } from './testing/document.arbitraries';

/** A block with a key. */
const keyed = (key: string, value: Block): Block => ({ ...value, key });
/** A keyed paragraph of plain text. */
const p = (key: string, value: string): Block => keyed(key, paragraph(value));

function merged(result: DocumentMergeResult): DocumentNode {
  if (!result.ok) throw new Error(`expected a merge, got conflicts ${JSON.stringify(result.conflicts)}`);
  return result.document;
}

function conflicts(result: DocumentMergeResult): DocumentConflict[] {
  if (result.ok) throw new Error(`expected conflicts, got ${JSON.stringify(result.document)}`);
  return result.conflicts;
}

/** Frozen in depth: a merge that changed its inputs would throw. */
function frozen<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const member of Object.values(value)) frozen(member);
    Object.freeze(value);
  }
  return value;
}

describe('mergeDocuments', () => {
  const ancestor = frozen(doc(p('a', 'Alpha'), p('b', 'Bravo'), p('c', 'Charlie')));

  describe('one side unchanged or both the same', () => {
    it('gives the changed side when the other is the ancestor', () => {
      const edited = frozen(doc(p('a', 'Alpha'), p('c', 'Charlie'), p('d', 'Delta')));
      expect(merged(mergeDocuments(ancestor, ancestor, edited))).toEqual(edited);
      expect(merged(mergeDocuments(ancestor, edited, ancestor))).toEqual(edited);
    });

    it('gives the common result when both sides made the same change', () => {
      const edited = frozen(doc(p('a', 'Alpha!'), p('c', 'Charlie')));
      expect(merged(mergeDocuments(ancestor, edited, edited))).toEqual(edited);
    });
  });

  describe('blocks', () => {
    it('takes a block changed on one side from that side, whichever side it is', () => {
      const ours = frozen(doc(p('a', 'Alpha one'), p('b', 'Bravo'), p('c', 'Charlie')));
      const theirs = frozen(doc(p('a', 'Alpha'), p('b', 'Bravo'), p('c', 'Charlie two')));
      expect(merged(mergeDocuments(ancestor, ours, theirs))).toEqual(doc(p('a', 'Alpha one'), p('b', 'Bravo'), p('c', 'Charlie two')));
    });

    it('keeps blocks added on each side and drops blocks deleted on one side', () => {
      const ours = frozen(doc(p('x', 'Added first'), p('a', 'Alpha'), p('c', 'Charlie')));
      const theirs = frozen(doc(p('a', 'Alpha'), p('b', 'Bravo'), p('c', 'Charlie'), p('y', 'Added last')));
      expect(merged(mergeDocuments(ancestor, ours, theirs))).toEqual(
        doc(p('x', 'Added first'), p('a', 'Alpha'), p('c', 'Charlie'), p('y', 'Added last')),
      );
    });

    it('accepts the same change made on both sides', () => {
      const ours = frozen(doc(p('a', 'Alpha!'), p('b', 'Bravo'), p('c', 'Charlie'), p('z', 'Mine')));
      const theirs = frozen(doc(p('a', 'Alpha!'), p('b', 'Bravo'), p('c', 'Charlie')));
      expect(merged(mergeDocuments(ancestor, ours, theirs))).toEqual(ours);
    });

    it('reports a block deleted on one side and changed on the other, with "" for the deleted side', () => {
      const ours = frozen(doc(p('a', 'Alpha'), p('c', 'Charlie')));
      const theirs = frozen(doc(p('a', 'Alpha'), p('b', 'Bravo edited'), p('c', 'Charlie')));
      expect(conflicts(mergeDocuments(ancestor, ours, theirs))).toEqual([{ block: 'b', ours: '', theirs: 'Bravo edited' }]);
      expect(conflicts(mergeDocuments(ancestor, theirs, ours))).toEqual([{ block: 'b', ours: 'Bravo edited', theirs: '' }]);
    });

    it('reports every conflicting block, not only the first', () => {
      const ours = frozen(doc(p('a', 'Alpha 1'), p('c', 'Charlie 1')));
      const theirs = frozen(doc(p('a', 'Alpha 2'), p('b', 'Bravo'), p('c', 'Charlie 2')));
      expect(conflicts(mergeDocuments(ancestor, ours, theirs))).toEqual([
        { block: 'a', ours: 'Alpha 1', theirs: 'Alpha 2' },
        { block: 'c', ours: 'Charlie 1', theirs: 'Charlie 2' },
      ]);
    });

    it('cuts the text of a conflicting block at 200 characters', () => {
      const long = (word: string) => `${word} ${'x'.repeat(300)}`;
      const [conflict] = conflicts(mergeDocuments(ancestor, doc(p('a', long('one'))), doc(p('a', long('two')))));
      expect(conflict.ours).toHaveLength(200);
      expect(conflict.ours.startsWith('one ')).toBe(true);
    });
  });

  describe('texts inside a block changed on both sides', () => {
    const base = frozen(doc(p('a', 'The quick brown fox jumps over the lazy dog')));

    it('merges edits of different words', () => {
      const ours = doc(p('a', 'The slow brown fox jumps over the lazy dog'));
      const theirs = doc(p('a', 'The quick brown fox jumps over the sleepy dog'));
      expect(merged(mergeDocuments(base, ours, theirs))).toEqual(doc(p('a', 'The slow brown fox jumps over the sleepy dog')));
    });

    it('reports edits of the same words, with the block text of each side', () => {
      const ours = doc(p('a', 'The slow brown fox jumps over the lazy dog'));
      const theirs = doc(p('a', 'The fast brown fox jumps over the lazy dog'));
      expect(conflicts(mergeDocuments(base, ours, theirs))).toEqual([
        { block: 'a', ours: 'The slow brown fox jumps over the lazy dog', theirs: 'The fast brown fox jumps over the lazy dog' },
      ]);
    });

    it('merges each text of a block whose structure (marks, inlines) is the same on the three sides', () => {
      const shaped = (first: string, second: string) =>
        doc(keyed('h', block('heading-2', [leaves([first], ['bold words', 'bold'], [second])])));
      const result = mergeDocuments(
        shaped('Install the tool', 'on Linux today'),
        shaped('Install the CLI', 'on Linux today'),
        shaped('Install the tool', 'on macOS today'),
      );
      expect(merged(result)).toEqual(shaped('Install the CLI', 'on macOS today'));
    });

    it('reports a block whose structure changed on one side and text on the other', () => {
      const ours = doc(keyed('a', block('paragraph', [leaves(['The '], ['quick', 'bold'], [' brown fox jumps over the lazy dog'])])));
      const theirs = doc(p('a', 'The quick brown fox jumps over the sleepy dog'));
      expect(conflicts(mergeDocuments(base, ours, theirs))).toEqual([
        { block: 'a', ours: 'The quick brown fox jumps over the lazy dog', theirs: 'The quick brown fox jumps over the sleepy dog' },
      ]);
    });

    it('reports a block whose type changed on one side and text on the other', () => {
      const ours = doc(keyed('a', block('heading-1', ['The quick brown fox jumps over the lazy dog'])));
      const theirs = doc(p('a', 'The quick brown fox jumps over the sleepy dog'));
      expect(mergeDocuments(base, ours, theirs).ok).toBe(false);
    });
  });

  describe('order of the blocks', () => {
    it('puts blocks both sides inserted at the same spot in key order, whichever side is ours', () => {
      const ours = doc(p('a', 'Alpha'), p('y', 'Ours'), p('b', 'Bravo'), p('c', 'Charlie'));
      const theirs = doc(p('a', 'Alpha'), p('x', 'Theirs'), p('b', 'Bravo'), p('c', 'Charlie'));
      const expected = doc(p('a', 'Alpha'), p('x', 'Theirs'), p('y', 'Ours'), p('b', 'Bravo'), p('c', 'Charlie'));
      expect(merged(mergeDocuments(ancestor, ours, theirs))).toEqual(expected);
      expect(merged(mergeDocuments(ancestor, theirs, ours))).toEqual(expected);
    });

    it('moves a block moved on one side and keeps the other side’s edit of it', () => {
      const ours = doc(p('b', 'Bravo'), p('c', 'Charlie'), p('a', 'Alpha'));
      const theirs = doc(p('a', 'Alpha edited'), p('b', 'Bravo'), p('c', 'Charlie'));
      expect(merged(mergeDocuments(ancestor, ours, theirs))).toEqual(doc(p('b', 'Bravo'), p('c', 'Charlie'), p('a', 'Alpha edited')));
    });

    it('inserts next to a block the other side moved away or deleted', () => {
      const ours = doc(p('a', 'Alpha'), p('b', 'Bravo'), p('n', 'New'), p('c', 'Charlie'));
      const theirs = doc(p('a', 'Alpha'), p('c', 'Charlie'), p('b', 'Bravo'));
      expect(merged(mergeDocuments(ancestor, ours, theirs))).toEqual(
        doc(p('a', 'Alpha'), p('n', 'New'), p('c', 'Charlie'), p('b', 'Bravo')),
      );
    });

    it('reports a block both sides moved to different places', () => {
      const ours = doc(p('b', 'Bravo'), p('a', 'Alpha'), p('c', 'Charlie'));
      const theirs = doc(p('b', 'Bravo'), p('c', 'Charlie'), p('a', 'Alpha'));
      expect(conflicts(mergeDocuments(ancestor, ours, theirs))).toEqual([{ block: 'a', ours: 'Alpha', theirs: 'Alpha' }]);
    });
  });

  describe('blocks without keys', () => {
    it('matches them by content', () => {
      const base = doc(paragraph('One'), paragraph('Two'), paragraph('Three'));
      const ours = doc(paragraph('One'), paragraph('Three'));
      const theirs = doc(paragraph('One'), paragraph('Two'), paragraph('Three'), paragraph('Four'));
      expect(merged(mergeDocuments(base, ours, theirs))).toEqual(doc(paragraph('One'), paragraph('Three'), paragraph('Four')));
    });

    it('takes an edit of one as a deletion and an addition, so that two edits of it are both kept', () => {
      const base = doc(paragraph('One'), paragraph('Two'));
      const result = mergeDocuments(base, doc(paragraph('One, ours'), paragraph('Two')), doc(paragraph('One, theirs'), paragraph('Two')));
      expect(merged(result)).toEqual(doc(paragraph('One, ours'), paragraph('One, theirs'), paragraph('Two')));
    });

    it('reports them with a null key', () => {
      const base = doc(paragraph('One'), paragraph('Two'), paragraph('Three'));
      const result = mergeDocuments(
        base,
        doc(paragraph('Two'), paragraph('One'), paragraph('Three')),
        doc(paragraph('Two'), paragraph('Three'), paragraph('One')),
      );
      expect(conflicts(result)).toEqual([{ block: null, ours: 'One', theirs: 'One' }]);
    });
  });

  it('merges the document data key by key', () => {
    const base = { ...doc(p('a', 'Alpha')), data: { schemaVersion: 1 } };
    const ours = { ...base, data: { schemaVersion: 1, theme: 'dark' } };
    const theirs = { ...base, data: { schemaVersion: 2 } };
    expect(merged(mergeDocuments(base, ours, theirs)).data).toEqual({ schemaVersion: 2, theme: 'dark' });
    expect(conflicts(mergeDocuments(base, ours, { ...base, data: { schemaVersion: 1, theme: 'light' } }))).toEqual([
      { block: null, ours: 'dark', theirs: 'light' },
    ]);
  });

  describe('properties', () => {
    /** A document with keys k1, k2, ... on its top-level blocks. */
    const keyedDocument = markdownDocument(2).map((document) =>
      frozen({ ...document, nodes: document.nodes.map((node, index) => keyed(`k${index + 1}`, node)) }),
    );

    type Edit = { kind: 'delete' | 'edit' | 'move' | 'insert' | 'word'; at: number; to: number; word: string };
    const edits = fc.array(
      fc.record({
        kind: fc.constantFrom<Edit['kind']>('delete', 'edit', 'move', 'insert', 'word'),
        at: fc.nat(),
        to: fc.nat(),
        word: fc.constantFrom('red', 'green', 'blue'),
      }),
      { maxLength: 4 },
    );

    /** Applies edits; new blocks get keys with the side's prefix, so the two sides never add the same key. */
    function apply(document: DocumentNode, script: readonly Edit[], side: string): DocumentNode {
      const nodes = [...document.nodes];
      script.forEach((step, index) => {
        const at = nodes.length === 0 ? 0 : step.at % nodes.length;
        if (step.kind === 'insert' || nodes.length === 0)
          nodes.splice(step.at % (nodes.length + 1), 0, p(`${side}${index}`, `${side} ${step.word}`));
        else if (step.kind === 'delete') nodes.splice(at, 1);
        else if (step.kind === 'edit') nodes[at] = { ...paragraph(`${side} ${step.word}`), key: nodes[at].key };
        else if (step.kind === 'word') nodes[at] = appendWord(nodes[at], step.word);
        else nodes.splice(step.to % nodes.length, 0, ...nodes.splice(at, 1));
      });
      return frozen({ ...document, nodes });
    }

    /** The block with a word added to the end of its first text, when it has one. */
    function appendWord(node: Block, word: string): Block {
      const first = node.nodes?.[0];
      if (node.type !== 'paragraph' || !first || first.object !== 'text') return node;
      return {
        ...node,
        nodes: [
          {
            ...first,
            leaves: [
              ...first.leaves.slice(0, -1),
              { ...first.leaves[first.leaves.length - 1], text: `${first.leaves[first.leaves.length - 1].text} ${word}` },
            ],
          },
          ...node.nodes!.slice(1),
        ],
      };
    }

    const swapped = (list: DocumentConflict[]) => list.map(({ block: key, ours, theirs }) => ({ block: key, ours: theirs, theirs: ours }));

    it('gives the other side exactly when one side is the ancestor, and the side when both are the same', () => {
      fc.assert(
        fc.property(keyedDocument, edits, (base, script) => {
          const edited = apply(base, script, 'a');
          expect(merged(mergeDocuments(base, base, edited))).toEqual(edited);
          expect(merged(mergeDocuments(base, edited, base))).toEqual(edited);
          expect(merged(mergeDocuments(base, edited, edited))).toEqual(edited);
        }),
      );
    });

    it('is symmetric: swapping ours and theirs gives the same document, or the same conflicts swapped', () => {
      fc.assert(
        fc.property(keyedDocument, edits, edits, (base, first, second) => {
          const ours = apply(base, first, 'a');
          const theirs = apply(base, second, 'b');
          const forward = mergeDocuments(base, ours, theirs);
          const backward = mergeDocuments(base, theirs, ours);
          if (forward.ok) expect(backward).toEqual(forward);
          else expect(backward).toEqual({ ok: false, conflicts: swapped(forward.conflicts) });
        }),
      );
    });

    it('always merges edits of different blocks, and keeps every side’s block', () => {
      fc.assert(
        fc.property(
          keyedDocument,
          fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
          fc.constantFrom('red', 'green'),
          (base, mine, word) => {
            // Each block is edited by at most one side: ours where `mine` says so, theirs elsewhere, and each side appends a block.
            const edit = (side: string, owns: (index: number) => boolean) =>
              frozen({
                ...base,
                nodes: [...base.nodes.map((node, index) => (owns(index) ? appendWord(node, `${side}${word}`) : node)), p(side, side)],
              });
            const ours = edit('a', (index) => mine[index] === true);
            const theirs = edit('b', (index) => mine[index] !== true);
            const result = merged(mergeDocuments(base, ours, theirs));
            expect(result.nodes).toEqual([
              ...base.nodes.map((_, index) => (mine[index] === true ? ours : theirs).nodes[index]),
              p('a', 'a'),
              p('b', 'b'),
            ]);
          },
        ),
      );
    });
  });
});

describe('mergeKeySequences', () => {
  it('keeps what each side inserted where it inserted it', () => {
    expect(mergeKeySequences(['a', 'b', 'c'], ['x', 'a', 'b', 'c'], ['a', 'b', 'c', 'y'])).toEqual({
      order: ['x', 'a', 'b', 'c', 'y'],
      conflicts: [],
    });
  });

  it('orders two insertions at one spot by their first key, whichever side is ours', () => {
    const forward = mergeKeySequences(['a', 'b'], ['a', 'z', 'w', 'b'], ['a', 'm', 'b']);
    expect(forward).toEqual({ order: ['a', 'm', 'z', 'w', 'b'], conflicts: [] });
    expect(mergeKeySequences(['a', 'b'], ['a', 'm', 'b'], ['a', 'z', 'w', 'b'])).toEqual(forward);
  });

  it('follows the side that moved a key', () => {
    expect(mergeKeySequences(['a', 'b', 'c', 'd'], ['b', 'c', 'd', 'a'], ['a', 'b', 'x', 'c', 'd'])).toEqual({
      order: ['b', 'x', 'c', 'd', 'a'],
      conflicts: [],
    });
  });

  it('reports a key both sides moved to different places', () => {
    expect(mergeKeySequences(['a', 'b', 'c'], ['b', 'a', 'c'], ['b', 'c', 'a']).conflicts).toEqual(['a']);
    expect(mergeKeySequences(['a', 'b', 'c'], ['b', 'c', 'a'], ['b', 'c', 'a'])).toEqual({ order: ['b', 'c', 'a'], conflicts: [] });
  });
});
