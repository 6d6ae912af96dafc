import type { RecordedEvent } from '#event-store/event-store.port';
import { MemoryReadStore } from '../memory/memory-read-store';
import type { Doc } from '../read-store.port';
import { documentProjection, multiDocumentProjection, positionKey, type Projection } from './projection';

/**
 * The idempotency guard of every projection, one write operation at a time: an event writes a
 * document only while the document's stamp is before the event's position, and stamps what it writes.
 */
type NoteEvent =
  | { type: 'NotePut'; data: { id: string; tag: string } }
  | { type: 'NoteCounted'; data: { id: string } }
  | { type: 'NotesRetagged'; data: { from: string; or: string; to: string } }
  | { type: 'NotePutAndAllMarked'; data: { id: string; tag: string } }
  | { type: 'NoteDropped'; data: { id: string } }
  | { type: 'NotesDropped'; data: { tag: string } }
  | { type: 'NoteCopied'; data: { from: string; to: string } }
  | { type: 'NotesPaired'; data: { a: string; b: string } };

interface NoteDoc extends Doc {
  tag: string;
  count?: number;
  marked?: boolean;
}

let position = 0n;
const at = (type: NoteEvent['type'], data: object): RecordedEvent => ({
  id: `e${++position}`,
  streamId: 'notes',
  revision: 0,
  position,
  type,
  data,
  metadata: {},
  recordedAt: '2026-01-01T00:00:00.000Z',
});

const notes = multiDocumentProjection<NoteEvent>({
  name: 'notes',
  collections: ['notes', 'copies'],
  large: ['notes'],
  indexes: [{ collection: 'notes', fields: { tag: 1 } }],
  handles: ['NotePut', 'NoteCounted', 'NotesRetagged', 'NotePutAndAllMarked', 'NoteDropped', 'NotesDropped', 'NoteCopied', 'NotesPaired'],
  async apply(event, documents) {
    const notes = documents.collection<NoteDoc>('notes');
    switch (event.type) {
      case 'NotePut':
        return notes.put({ _id: event.data.id, tag: event.data.tag });
      case 'NoteCounted':
        return notes.update(event.data.id, { $inc: { count: 1 } });
      case 'NotesRetagged':
        return notes.updateMany({ $or: [{ tag: event.data.from }, { tag: event.data.or }] }, { $set: { tag: event.data.to } });
      case 'NotePutAndAllMarked':
        await notes.put({ _id: event.data.id, tag: event.data.tag });
        return notes.updateMany({ tag: event.data.tag }, { $set: { marked: true } });
      case 'NoteDropped':
        return notes.delete(event.data.id);
      case 'NotesDropped':
        return notes.deleteMany({ tag: event.data.tag });
      case 'NoteCopied': {
        const byFind = (await notes.find({ tag: event.data.from }, { limit: 10 })).items.map((note) => note._id);
        const byFindOne = await notes.findOne({ tag: event.data.from });
        return documents.collection<Doc>('copies').put({ _id: event.data.to, found: byFind, first: byFindOne?._id ?? null });
      }
      case 'NotesPaired':
        // Two documents of one collection, then the first read and written again.
        await notes.put({ _id: event.data.a, tag: 'paired' });
        await notes.put({ _id: event.data.b, tag: 'paired' });
        await notes.get(event.data.a);
        return notes.update(event.data.a, { $set: { marked: true } });
    }
  },
});

async function apply(reads: MemoryReadStore, projection: Projection, events: RecordedEvent[]): Promise<void> {
  await reads.transaction(async (tx) => {
    for (const event of events) await projection.apply(event, tx);
  });
}
const all = async (reads: MemoryReadStore, name: string) => (await reads.collection(name).find({}, { limit: 100 })).items;

describe('projection guard: each write operation', () => {
  it('given an update with operators but no $set, then the document is stamped all the same: applying it again counts once', async () => {
    const reads = new MemoryReadStore();
    const put = at('NotePut', { id: 'n1', tag: 'a' });
    const counted = at('NoteCounted', { id: 'n1' });
    await apply(reads, notes, [put, counted, counted]);
    expect(await reads.collection('notes').get('n1')).toEqual({ _id: 'n1', tag: 'a', count: 1, _position: positionKey(counted.position) });
  });

  it('given an update of a document that is not there, then nothing is written', async () => {
    const reads = new MemoryReadStore();
    await apply(reads, notes, [at('NoteCounted', { id: 'nobody' })]);
    expect(await all(reads, 'notes')).toEqual([]);
  });

  it('given a projection filter of its own with $or, then the guard keeps it: only the documents it names are written', async () => {
    const reads = new MemoryReadStore();
    const events = [at('NotePut', { id: 'n1', tag: 'a' }), at('NotePut', { id: 'n2', tag: 'b' }), at('NotePut', { id: 'n3', tag: 'c' })];
    await apply(reads, notes, [...events, at('NotesRetagged', { from: 'a', or: 'b', to: 'z' })]);
    expect((await all(reads, 'notes')).map((note) => [note._id, note.tag])).toEqual([
      ['n1', 'z'],
      ['n2', 'z'],
      ['n3', 'c'],
    ]);
  });

  it('given an update of many that matches a document older than the event, then it is written and stamped', async () => {
    const reads = new MemoryReadStore();
    await apply(reads, notes, [at('NotePut', { id: 'n1', tag: 'a' })]);
    const retagged = at('NotesRetagged', { from: 'a', or: 'a', to: 'z' });
    await apply(reads, notes, [retagged]);
    expect(await reads.collection('notes').get('n1')).toEqual({ _id: 'n1', tag: 'z', _position: positionKey(retagged.position) });
  });

  it('given an update of many after a put of the same document by the same event, then the update goes through', async () => {
    const reads = new MemoryReadStore();
    const both = at('NotePutAndAllMarked', { id: 'n1', tag: 'a' });
    await apply(reads, notes, [both]);
    expect(await reads.collection('notes').get('n1')).toEqual({ _id: 'n1', tag: 'a', marked: true, _position: positionKey(both.position) });
  });

  it('given a delete by an older event applied again, then a document a newer event wrote stays', async () => {
    const reads = new MemoryReadStore();
    const put = at('NotePut', { id: 'n1', tag: 'a' });
    const dropped = at('NoteDropped', { id: 'n1' });
    const putAgain = at('NotePut', { id: 'n1', tag: 'b' });
    await apply(reads, notes, [put, dropped, putAgain, dropped]);
    expect(await all(reads, 'notes')).toEqual([{ _id: 'n1', tag: 'b', _position: positionKey(putAgain.position) }]);
  });

  it('given a delete of many by an older event applied again, then documents newer events wrote stay, older ones go', async () => {
    const reads = new MemoryReadStore();
    const old = at('NotePut', { id: 'old', tag: 'a' });
    const dropped = at('NotesDropped', { tag: 'a' });
    const newer = at('NotePut', { id: 'new', tag: 'a' });
    await apply(reads, notes, [old, dropped, newer]);
    await apply(reads, notes, [at('NotePut', { id: 'older', tag: 'a' })]);
    await reads.transaction(async (tx) => tx.collection('notes').put({ _id: 'unstamped', tag: 'a' }));
    await apply(reads, notes, [dropped]);
    expect((await all(reads, 'notes')).map((note) => note._id)).toEqual(['new', 'older']);
  });

  it('given the first event of the log (position 0), then it writes a new document', async () => {
    const reads = new MemoryReadStore();
    await apply(reads, notes, [{ ...at('NotePut', { id: 'n0', tag: 'a' }), position: 0n }]);
    expect(await reads.collection('notes').get('n0')).toEqual({ _id: 'n0', tag: 'a', _position: positionKey(0n) });
  });

  it('given one event writing two documents of a collection, then each is guarded on its own: one stamped past the event stays', async () => {
    const reads = new MemoryReadStore();
    const paired = at('NotesPaired', { a: 'n1', b: 'n2' });
    const newer = at('NotePut', { id: 'n2', tag: 'newer' });
    await apply(reads, notes, [newer, paired]);
    expect(await all(reads, 'notes')).toEqual([
      { _id: 'n1', tag: 'paired', marked: true, _position: positionKey(paired.position) },
      { _id: 'n2', tag: 'newer', _position: positionKey(newer.position) },
    ]);
  });

  it('given one event that wrote a document, then its later writes of that document go through after writing others and reading it', async () => {
    const reads = new MemoryReadStore();
    const paired = at('NotesPaired', { a: 'n1', b: 'n2' });
    await apply(reads, notes, [paired]);
    expect(await reads.collection('notes').get('n1')).toMatchObject({ marked: true });
  });

  it('given an update of many after a put by the same event, then a document stamped past the event is still skipped', async () => {
    const reads = new MemoryReadStore();
    const both = at('NotePutAndAllMarked', { id: 'n1', tag: 'a' });
    const newer = at('NotePut', { id: 'n2', tag: 'a' });
    await apply(reads, notes, [newer, both]);
    expect(await reads.collection('notes').get('n2')).toEqual({ _id: 'n2', tag: 'a', _position: positionKey(newer.position) });
  });

  it('given a projection filter with $or applied again, then a document stamped past the event is skipped', async () => {
    const reads = new MemoryReadStore();
    const put = at('NotePut', { id: 'n1', tag: 'a' });
    const retagged = at('NotesRetagged', { from: 'a', or: 'b', to: 'z' });
    const putAgain = at('NotePut', { id: 'n1', tag: 'a' });
    await apply(reads, notes, [put, retagged, putAgain, retagged]);
    expect(await reads.collection('notes').get('n1')).toEqual({ _id: 'n1', tag: 'a', _position: positionKey(putAgain.position) });
  });

  it('reads through find and findOne as the collection answers them', async () => {
    const reads = new MemoryReadStore();
    await apply(reads, notes, [
      at('NotePut', { id: 'n1', tag: 'a' }),
      at('NotePut', { id: 'n2', tag: 'b' }),
      at('NoteCopied', { from: 'a', to: 'c1' }),
    ]);
    expect(await reads.collection('copies').get('c1')).toMatchObject({ found: ['n1'], first: 'n1' });
  });
});

describe('projection shape', () => {
  it('a multi-document projection declares its name, collections, large collections, indexes and handled types as given', () => {
    expect(notes).toMatchObject({
      name: 'notes',
      collections: ['notes', 'copies'],
      large: ['notes'],
      indexes: [{ collection: 'notes', fields: { tag: 1 } }],
      handles: [
        'NotePut',
        'NoteCounted',
        'NotesRetagged',
        'NotePutAndAllMarked',
        'NoteDropped',
        'NotesDropped',
        'NoteCopied',
        'NotesPaired',
      ],
    });
  });

  it('given no resources, when a projection reads a blob, then the error names the wiring mistake', async () => {
    const reader = multiDocumentProjection<NoteEvent>({
      name: 'reader',
      collections: [],
      handles: ['NotePut'],
      apply: async (_event, _documents, resources) => void (await resources.blobs.read('h')),
    });
    await expect(apply(new MemoryReadStore(), reader, [at('NotePut', { id: 'n', tag: 'a' })])).rejects.toThrow(
      'this projection runner was started without a blob store',
    );
  });
});

describe('documentProjection', () => {
  const single = documentProjection<Extract<NoteEvent, { type: 'NotePut' | 'NoteDropped' }>, NoteDoc>({
    name: 'single',
    collection: 'single',
    handles: ['NotePut', 'NoteDropped'],
    indexes: [{ fields: { tag: 1 }, unique: true }],
    documentId: (event) => (event.type === 'NotePut' && event.data.tag === 'none' ? null : event.data.id),
    evolve: (document, event) => (event.type === 'NotePut' ? { _id: event.data.id, tag: event.data.tag } : null),
  });

  it('declares its one collection, and its indexes on that collection', () => {
    expect(single).toMatchObject({
      name: 'single',
      collections: ['single'],
      indexes: [{ collection: 'single', fields: { tag: 1 }, unique: true }],
    });
  });

  it('given an event about no document, then nothing is written', async () => {
    const reads = new MemoryReadStore();
    await apply(reads, single, [at('NotePut', { id: 'n1', tag: 'none' })]);
    expect(await all(reads, 'single')).toEqual([]);
  });

  it('given evolve answers null, then the document is deleted', async () => {
    const reads = new MemoryReadStore();
    await apply(reads, single, [at('NotePut', { id: 'n1', tag: 'a' }), at('NoteDropped', { id: 'n1' })]);
    expect(await all(reads, 'single')).toEqual([]);
  });
});
