import type { RecordedEvent } from '../../event-store/src/event-store.port';
import type { AuditCatalog } from '../../platform/src/audit-catalog';
import { log } from '../../platform/src/logging';
import { MemoryReadStore } from '../../read-store/src/memory/memory-read-store';
import { positionKey } from '../../read-store/src/projections/projection';
import { AUDIT_EVENTS, AUDIT_TARGET_LABELS, auditProjection, combineAuditCatalogs, type AuditEventDoc } from './audit.projection';

const ALICE = { type: 'user', id: 'u-alice', label: 'Alice' };

/** A catalog shaped like the contexts' ones: spaces with titles, a deletion without one, a user-only event. */
const catalog: AuditCatalog = {
  SpaceCreated: (e) => {
    const d = e.data as { organizationId: string; spaceId: string; title: string };
    return { action: 'space.created', organizationId: d.organizationId, target: { type: 'space', id: d.spaceId, label: d.title } };
  },
  SpaceRenamed: (e) => {
    const d = e.data as { organizationId: string; spaceId: string; title: string };
    return { action: 'space.updated', organizationId: d.organizationId, target: { type: 'space', id: d.spaceId, label: d.title } };
  },
  SpaceDeleted: (e) => {
    const d = e.data as { organizationId: string; spaceId: string };
    return { action: 'space.deleted', organizationId: d.organizationId, target: { type: 'space', id: d.spaceId } };
  },
  AccessTokenIssued: () => null,
  Broken: () => {
    throw new Error('cannot read this event');
  },
};

let position = 0n;
function event(type: string, data: Record<string, unknown>, metadata: Record<string, unknown> = { actor: ALICE, source: 'api', occurredAt: '2024-05-01T10:00:00.000Z' }): RecordedEvent {
  position += 1n;
  return {
    id: `00000000-0000-4000-8000-${position.toString().padStart(12, '0')}`,
    streamId: 'space-s1',
    revision: Number(position) - 1,
    position,
    type,
    data,
    metadata,
    recordedAt: '2024-05-01T10:00:01.000Z',
  };
}

async function given(...events: RecordedEvent[]): Promise<MemoryReadStore> {
  const reads = new MemoryReadStore();
  await apply(reads, ...events);
  return reads;
}

async function apply(reads: MemoryReadStore, ...events: RecordedEvent[]): Promise<void> {
  const projection = auditProjection(catalog);
  await reads.transaction(async (tx) => {
    for (const e of events) if (!projection.handles || projection.handles.includes(e.type)) await projection.apply(e, tx);
  });
}

async function auditDocs(reads: MemoryReadStore): Promise<AuditEventDoc[]> {
  return (await reads.collection<AuditEventDoc>(AUDIT_EVENTS).find({}, { sort: { position: 1 }, limit: 1000 })).items;
}

describe('audit projection', () => {
  beforeEach(() => {
    position = 0n;
  });

  it('given an event the catalog describes, then one audit document keyed by the event id', async () => {
    const created = event('SpaceCreated', { organizationId: 'o1', spaceId: 's1', title: 'Handbook' });
    const reads = await given(created);
    expect(await auditDocs(reads)).toEqual([
      {
        _id: created.id,
        organizationId: 'o1',
        occurredAt: '2024-05-01T10:00:00.000Z',
        action: 'space.created',
        actor: ALICE,
        source: 'api',
        target: { type: 'space', id: 's1', label: 'Handbook' },
        position: positionKey(created.position),
      },
    ]);
  });

  it('given events the catalog maps to null or does not know, then no audit document', async () => {
    const reads = await given(event('AccessTokenIssued', { tokenId: 't1' }), event('SomethingElse', {}));
    expect(await auditDocs(reads)).toEqual([]);
  });

  it('handles only the event types of the catalog', () => {
    expect(auditProjection(catalog).handles).toEqual(['SpaceCreated', 'SpaceRenamed', 'SpaceDeleted', 'AccessTokenIssued', 'Broken']);
  });

  it('given an event applied twice, then the second application is a no-op', async () => {
    const created = event('SpaceCreated', { organizationId: 'o1', spaceId: 's1', title: 'Handbook' });
    const renamed = event('SpaceRenamed', { organizationId: 'o1', spaceId: 's1', title: 'Manual' });
    const reads = await given(created, renamed);
    const before = { docs: await auditDocs(reads), labels: (await reads.collection(AUDIT_TARGET_LABELS).find({})).items };
    await apply(reads, created, renamed, created);
    expect(await auditDocs(reads)).toEqual(before.docs);
    expect((await reads.collection(AUDIT_TARGET_LABELS).find({})).items).toEqual(before.labels);
    expect(before.labels).toEqual([{ _id: 'space:s1', label: 'Manual', _position: positionKey(renamed.position) }]);
  });

  it('given a target event without label, then the last label seen for that target is carried over', async () => {
    const created = event('SpaceCreated', { organizationId: 'o1', spaceId: 's1', title: 'Handbook' });
    const renamed = event('SpaceRenamed', { organizationId: 'o1', spaceId: 's1', title: 'Manual' });
    const deleted = event('SpaceDeleted', { organizationId: 'o1', spaceId: 's1' });
    const otherDeleted = event('SpaceDeleted', { organizationId: 'o1', spaceId: 's2' });
    const reads = await given(created, renamed, deleted, otherDeleted);
    const docs = await auditDocs(reads);
    expect(docs.map((d) => [d.action, d.target])).toEqual([
      ['space.created', { type: 'space', id: 's1', label: 'Handbook' }],
      ['space.updated', { type: 'space', id: 's1', label: 'Manual' }],
      ['space.deleted', { type: 'space', id: 's1', label: 'Manual' }],
      // never labelled: its id stands in
      ['space.deleted', { type: 'space', id: 's2', label: 's2' }],
    ]);
  });

  it('given an older event replayed after a newer label, then the newer label stays', async () => {
    const created = event('SpaceCreated', { organizationId: 'o1', spaceId: 's1', title: 'Handbook' });
    const renamed = event('SpaceRenamed', { organizationId: 'o1', spaceId: 's1', title: 'Manual' });
    const reads = await given(renamed);
    await apply(reads, created);
    expect(await reads.collection(AUDIT_TARGET_LABELS).get('space:s1')).toMatchObject({ label: 'Manual' });
  });

  it('given metadata without actor, source or occurredAt, then the system defaults and the recorded time', async () => {
    const created = event('SpaceCreated', { organizationId: 'o1', spaceId: 's1', title: 'Handbook' }, {});
    const [doc] = await auditDocs(await given(created));
    expect(doc).toMatchObject({
      actor: { type: 'system', id: 'unknown', label: 'unknown' },
      source: 'system',
      occurredAt: '2024-05-01T10:00:01.000Z',
    });
  });

  it('given an occurredAt with an offset, then it is stored as UTC', async () => {
    const created = event('SpaceCreated', { organizationId: 'o1', spaceId: 's1', title: 'H' }, { actor: ALICE, source: 'api', occurredAt: '2024-05-01T12:00:00+02:00' });
    const [doc] = await auditDocs(await given(created));
    expect(doc.occurredAt).toBe('2024-05-01T10:00:00.000Z');
  });

  it('given an event the catalog fails to describe, then it is left out and later events still apply', async () => {
    const warn = jest.spyOn(log, 'warn').mockImplementation(() => undefined);
    try {
      const broken = event('Broken', {});
      const created = event('SpaceCreated', { organizationId: 'o1', spaceId: 's1', title: 'Handbook' });
      const docs = await auditDocs(await given(broken, created));
      expect(docs.map((d) => d._id)).toEqual([created.id]);
      expect(warn).toHaveBeenCalledWith(expect.objectContaining({ eventId: broken.id, eventType: 'Broken' }), expect.stringContaining('left out of the audit log'));
    } finally {
      warn.mockRestore();
    }
  });

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])('given an event of type %s, which no catalog describes, then no combined mapper and no audit entry', async (type) => {
    const combined = combineAuditCatalogs(catalog);
    expect(combined[type]).toBeUndefined();
    const reads = new MemoryReadStore();
    const projection = auditProjection(combined);
    await reads.transaction(async (tx) => projection.apply(event(type, { organizationId: 'o1', spaceId: 's1', title: 'x' }), tx));
    expect(await auditDocs(reads)).toEqual([]);
  });

  it('combines catalogs and refuses an event type described twice', () => {
    const a: AuditCatalog = { A: () => null };
    const b: AuditCatalog = { B: () => null };
    expect(Object.keys(combineAuditCatalogs(a, b))).toEqual(['A', 'B']);
    expect(() => combineAuditCatalogs(a, b, { A: () => null })).toThrow("two audit catalogs describe the event type 'A'");
  });
});
