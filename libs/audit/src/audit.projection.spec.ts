import type { AuditCatalog } from '#platform/audit-catalog';
import { log } from '#platform/logging';
import { positionKey } from '#read-store/projections/projection';
import { projectionSpec, type GivenEvent } from '#testing';
import { combineAuditCatalogs } from '#platform/audit-catalog';
import { AUDIT_EVENTS, AUDIT_TARGET_LABELS, auditProjection } from './audit.projection';

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

const options = { stream: 'space-s1', recordedAt: '2024-05-01T10:00:01.000Z' };
const spec = projectionSpec(auditProjection(catalog), options);
const event = (
  type: string,
  data: Record<string, unknown>,
  metadata: Record<string, unknown> = { actor: ALICE, source: 'api', occurredAt: '2024-05-01T10:00:00.000Z' },
): GivenEvent => ({
  type,
  data,
  metadata,
});
const created = event('SpaceCreated', { organizationId: 'o1', spaceId: 's1', title: 'Handbook' });
const renamed = event('SpaceRenamed', { organizationId: 'o1', spaceId: 's1', title: 'Manual' });

describe('audit projection', () => {
  it('given an event the catalog describes, then one audit document keyed by the event id', async () => {
    await spec.given([created]).then(([recorded]) => ({
      [AUDIT_EVENTS]: [
        {
          _id: recorded.id,
          organizationId: 'o1',
          occurredAt: '2024-05-01T10:00:00.000Z',
          action: 'space.created',
          actor: ALICE,
          source: 'api',
          target: { type: 'space', id: 's1', label: 'Handbook' },
          position: positionKey(recorded.position),
        },
      ],
    }));
  });

  it('given events the catalog maps to null or does not know, then no audit document', async () => {
    await spec.given([event('AccessTokenIssued', { tokenId: 't1' }), event('SomethingElse', {})]).then({ [AUDIT_EVENTS]: [] });
  });

  it('handles only the event types of the catalog', () => {
    expect(auditProjection(catalog).handles).toEqual(['SpaceCreated', 'SpaceRenamed', 'SpaceDeleted', 'AccessTokenIssued', 'Broken']);
  });

  it('given events, when applied twice and one again, then the audit documents and labels are unchanged', async () => {
    await spec.given([created, renamed]).redelivered(0).thenIdempotent();
  });

  it('given a target labelled twice, then the label document holds the last label, stamped with its event', async () => {
    await spec.given([created, renamed]).then((recorded) => ({
      [AUDIT_TARGET_LABELS]: [{ _id: 'space:s1', label: 'Manual', _position: positionKey(recorded[1].position) }],
    }));
  });

  it('given a target event without label, then the last label seen for that target is carried over', async () => {
    const deleted = event('SpaceDeleted', { organizationId: 'o1', spaceId: 's1' });
    const otherDeleted = event('SpaceDeleted', { organizationId: 'o1', spaceId: 's2' });
    await spec.given([created, renamed, deleted, otherDeleted]).then({
      [AUDIT_EVENTS]: [
        expect.objectContaining({ action: 'space.created', target: { type: 'space', id: 's1', label: 'Handbook' } }),
        expect.objectContaining({ action: 'space.updated', target: { type: 'space', id: 's1', label: 'Manual' } }),
        expect.objectContaining({ action: 'space.deleted', target: { type: 'space', id: 's1', label: 'Manual' } }),
        // never labelled: its id stands in
        expect.objectContaining({ action: 'space.deleted', target: { type: 'space', id: 's2', label: 's2' } }),
      ],
    });
  });

  it('given an older event delivered again after a newer label, then the newer label stays', async () => {
    await spec
      .given([created, renamed])
      .redelivered(0)
      .then({ [AUDIT_TARGET_LABELS]: [expect.objectContaining({ label: 'Manual' })] });
  });

  it('given metadata without actor, source or occurredAt, then the system defaults and the recorded time', async () => {
    await spec.given([event('SpaceCreated', { organizationId: 'o1', spaceId: 's1', title: 'Handbook' }, {})]).then({
      [AUDIT_EVENTS]: [
        expect.objectContaining({
          actor: { type: 'system', id: 'unknown', label: 'unknown' },
          source: 'system',
          occurredAt: '2024-05-01T10:00:01.000Z',
        }),
      ],
    });
  });

  it('given an occurredAt with an offset, then it is stored as UTC', async () => {
    const offset = event(
      'SpaceCreated',
      { organizationId: 'o1', spaceId: 's1', title: 'H' },
      { actor: ALICE, source: 'api', occurredAt: '2024-05-01T12:00:00+02:00' },
    );
    await spec.given([offset]).then({ [AUDIT_EVENTS]: [expect.objectContaining({ occurredAt: '2024-05-01T10:00:00.000Z' })] });
  });

  it('given an occurredAt past the end of its month, then it is stored as the instant it names (the next month)', async () => {
    const late = event(
      'SpaceCreated',
      { organizationId: 'o1', spaceId: 's1', title: 'H' },
      { actor: ALICE, source: 'api', occurredAt: '2024-02-30T10:00:00.000Z' },
    );
    await spec.given([late]).then({ [AUDIT_EVENTS]: [expect.objectContaining({ occurredAt: '2024-03-01T10:00:00.000Z' })] });
  });

  describe('given an event the catalog fails to describe', () => {
    let warn: jest.SpyInstance;
    beforeEach(() => {
      warn = jest.spyOn(log, 'warn').mockImplementation(() => undefined);
    });
    afterEach(() => warn.mockRestore());

    it('then it is left out and later events still apply', async () => {
      await spec
        .given([event('Broken', {}), created])
        .then((recorded) => ({ [AUDIT_EVENTS]: [expect.objectContaining({ _id: recorded[1].id })] }));
    });

    it('then the failure is logged with the event', async () => {
      await spec.given([event('Broken', {}), created]).thenStore(async (_reads, recorded) => {
        expect(warn).toHaveBeenCalledWith(
          expect.objectContaining({ eventId: recorded[0].id, eventType: 'Broken' }),
          expect.stringContaining('left out of the audit log'),
        );
      });
    });
  });

  describe.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'given an event of type %s, which no catalog describes',
    (type) => {
      it('then the combined catalog has no mapper for it', () => {
        expect(combineAuditCatalogs(catalog)[type]).toBeUndefined();
      });

      it('when applied anyway (past the runner’s routing), then no audit entry', async () => {
        await projectionSpec(auditProjection(combineAuditCatalogs(catalog)), { ...options, ignoreHandles: true })
          .given([event(type, { organizationId: 'o1', spaceId: 's1', title: 'x' })])
          .then({ [AUDIT_EVENTS]: [] });
      });
    },
  );

  it('combines catalogs', () => {
    expect(Object.keys(combineAuditCatalogs({ A: () => null }, { B: () => null }))).toEqual(['A', 'B']);
  });

  it('refuses to combine catalogs that describe an event type twice', () => {
    expect(() => combineAuditCatalogs({ A: () => null }, { B: () => null }, { A: () => null })).toThrow(
      "two audit catalogs describe the event type 'A'",
    );
  });
});
