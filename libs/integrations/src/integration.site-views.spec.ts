import { ManualClock } from '#platform/clock';
import type { IntegrationEventDoc } from './integration.projections';
import type { IntegrationRuntime } from './integration.runtime';
import {
  anonymousIdOf,
  referrerOf,
  SITE_VIEW_LIMITS,
  SiteViewDeliveries,
  siteViewMembers,
  truncatedAddress,
  type SiteView,
  type SiteViewMembers,
} from './integration.site-views';

const pseudonym = { key: Buffer.alloc(32, 7), day: '2026-01-01' };
const visitor = { anonymousId: 'a', cookies: {}, userAgent: '', ip: '', claims: {} };
const view = (pageId: string, extra: Partial<SiteViewMembers> = {}): SiteViewMembers => ({
  siteId: 'site1',
  spaceId: 'space1',
  pageId,
  url: `https://docs.example.com/${pageId}`,
  referrer: '',
  visitor,
  ...extra,
});
const handed = (extra: Partial<SiteView> = {}): SiteView => ({
  organizationId: 'org1',
  siteId: 'site1',
  spaceId: 'space1',
  pageId: 'p',
  url: 'https://docs.example.com/p',
  visitor: { claims: {} },
  ...extra,
});
const installation = (id: string) => ({ _id: id, integrationName: `integration-${id}`, organizationId: 'org1' });

/** A runtime whose deliveries are held until released, recording what it was given. */
function heldRuntime() {
  const given: IntegrationEventDoc[] = [];
  const waiting: Array<() => void> = [];
  const runtime = {
    process: (event: IntegrationEventDoc) => {
      given.push(event);
      return new Promise<{ status: 'success'; logs: [] }>((resolve) => waiting.push(() => resolve({ status: 'success', logs: [] })));
    },
  } as unknown as IntegrationRuntime;
  const releaseAll = async () => {
    while (waiting.length > 0) {
      waiting.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { runtime, given, releaseAll };
}

describe('what a view carries', () => {
  it('cuts the URL at 2,048 characters', () => {
    expect(siteViewMembers(handed({ url: `https://docs.example.com/?q=${'x'.repeat(5000)}` }), pseudonym).url).toHaveLength(2048);
  });

  it('keeps claims of at most 2 KB of JSON, and leaves out larger ones', () => {
    expect(siteViewMembers(handed({ visitor: { claims: { plan: 'pro' } } }), pseudonym).visitor.claims).toEqual({ plan: 'pro' });
    expect(siteViewMembers(handed({ visitor: { claims: { blob: 'é'.repeat(1100) } } }), pseudonym).visitor.claims).toEqual({});
  });

  it('leaves out the page of a view that has none', () => {
    expect(siteViewMembers(handed({ pageId: null }), pseudonym)).not.toHaveProperty('pageId');
  });

  it('gives the visitor no cookies, whatever the reader sent', () => {
    expect(siteViewMembers(handed(), pseudonym).visitor.cookies).toEqual({});
  });

  it('cuts the user agent at 512 characters', () => {
    expect(siteViewMembers(handed({ visitor: { claims: {}, userAgent: 'U'.repeat(2000) } }), pseudonym).visitor.userAgent).toHaveLength(
      512,
    );
  });
});

describe("the reader's address as integrations see it", () => {
  it('zeroes the last byte of an IPv4 address', () => {
    expect(truncatedAddress('203.0.113.77')).toBe('203.0.113.0');
  });

  it('keeps the /48 of an IPv6 address', () => {
    expect(truncatedAddress('2001:db8:1234:5678::1')).toBe('2001:db8:1234::');
  });

  it('reads an IPv4-mapped IPv6 address as IPv4', () => {
    expect(truncatedAddress('::ffff:198.51.100.9')).toBe('198.51.100.0');
  });

  it('is empty for what is not an address', () => {
    expect([undefined, '', 'localhost', '999.1.1.1', '__proto__'].map(truncatedAddress)).toEqual(['', '', '', '', '']);
  });
});

describe('the referrer as integrations see it', () => {
  it('keeps the origin and the path, not the query, the fragment or credentials', () => {
    expect(referrerOf('https://user:pass@search.example/find/docs?q=secret#top')).toBe('https://search.example/find/docs');
  });

  it('is empty for what is not an http(s) URL', () => {
    expect([undefined, '', 'not a url', 'javascript:alert(1)', 'file:///etc/passwd'].map((referrer) => referrerOf(referrer))).toEqual([
      '',
      '',
      '',
      '',
      '',
    ]);
  });
});

describe("the visitor's pseudonym", () => {
  const key = Buffer.alloc(32, 1);

  it('is the same for the same reader on the same site the same day', () => {
    expect(anonymousIdOf(key, 'site1', '2026-01-01', '203.0.113.77', 'UA')).toBe(
      anonymousIdOf(key, 'site1', '2026-01-01', '203.0.113.77', 'UA'),
    );
  });

  it('differs on another day, on another site, for another address or user agent, and under another key', () => {
    const one = anonymousIdOf(key, 'site1', '2026-01-01', '203.0.113.77', 'UA');
    const others = [
      anonymousIdOf(key, 'site1', '2026-01-02', '203.0.113.77', 'UA'),
      anonymousIdOf(key, 'site2', '2026-01-01', '203.0.113.77', 'UA'),
      anonymousIdOf(key, 'site1', '2026-01-01', '203.0.113.78', 'UA'),
      anonymousIdOf(key, 'site1', '2026-01-01', '203.0.113.77', 'UB'),
      anonymousIdOf(Buffer.alloc(32, 2), 'site1', '2026-01-01', '203.0.113.77', 'UA'),
    ];
    for (const other of others) expect(other).not.toBe(one);
  });

  it('does not contain the address', () => {
    expect(
      siteViewMembers(handed({ visitor: { claims: {}, ip: '203.0.113.77', userAgent: 'UA' } }), pseudonym).visitor.anonymousId,
    ).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('site view deliveries', () => {
  it('delivers each installation’s views in order, one at a time, as site_view events of that installation', async () => {
    const { runtime, given, releaseAll } = heldRuntime();
    const deliveries = new SiteViewDeliveries(runtime, new ManualClock());
    for (const page of ['p1', 'p2', 'p3']) deliveries.enqueue(installation('i1'), view(page));
    expect(given.map((event) => event.payload.pageId)).toEqual(['p1']);
    await releaseAll();
    await deliveries.settled();
    expect(given.map((event) => [event.installationId, event.payload.type, event.payload.pageId])).toEqual([
      ['i1', 'site_view', 'p1'],
      ['i1', 'site_view', 'p2'],
      ['i1', 'site_view', 'p3'],
    ]);
    expect(new Set(given.map((event) => event.payload.eventId)).size).toBe(3);
  });

  it('drops views beyond an installation’s share of the queue, and takes them again once delivered', async () => {
    const { runtime, given, releaseAll } = heldRuntime();
    const deliveries = new SiteViewDeliveries(runtime, new ManualClock(), { ...SITE_VIEW_LIMITS, maxViewsPerInstallation: 2 });
    // The first is taken for delivery at once and leaves the queue: two more fit, the fourth does not.
    expect(['p1', 'p2', 'p3', 'p4'].map((page) => deliveries.enqueue(installation('i1'), view(page)))).toEqual([true, true, true, false]);
    expect(deliveries.enqueue(installation('i2'), view('other'))).toBe(true);
    await releaseAll();
    await deliveries.settled();
    expect(given.map((event) => event.payload.pageId).sort()).toEqual(['other', 'p1', 'p2', 'p3']);
    expect(deliveries.enqueue(installation('i1'), view('p5'))).toBe(true);
  });

  it('drops views when the whole queue is full, in views or in bytes', () => {
    const { runtime } = heldRuntime();
    const byCount = new SiteViewDeliveries(runtime, new ManualClock(), { ...SITE_VIEW_LIMITS, maxViews: 1 });
    expect([
      byCount.enqueue(installation('i1'), view('p1')),
      byCount.enqueue(installation('i1'), view('p2')),
      byCount.enqueue(installation('i2'), view('p3')),
    ]).toEqual([true, true, false]);
    const byBytes = new SiteViewDeliveries(runtime, new ManualClock(), { ...SITE_VIEW_LIMITS, maxBytes: 600 });
    expect([
      byBytes.enqueue(installation('i1'), view('p1')),
      byBytes.enqueue(installation('i1'), view('p2')),
      byBytes.enqueue(installation('i1'), view('p3')),
    ]).toEqual([true, true, false]);
  });

  it('drops a view that waited longer than its time to live, undelivered', async () => {
    const { runtime, given, releaseAll } = heldRuntime();
    const clock = new ManualClock();
    const deliveries = new SiteViewDeliveries(runtime, clock);
    deliveries.enqueue(installation('i1'), view('p1'));
    deliveries.enqueue(installation('i1'), view('stale'));
    clock.advance(SITE_VIEW_LIMITS.ttlMs);
    await releaseAll();
    await deliveries.settled();
    expect(given.map((event) => event.payload.pageId)).toEqual(['p1']);
  });

  it('delivers to at most concurrentInstallations installations at a time', async () => {
    const { runtime, given, releaseAll } = heldRuntime();
    const deliveries = new SiteViewDeliveries(runtime, new ManualClock(), { ...SITE_VIEW_LIMITS, concurrentInstallations: 2 });
    for (const id of ['i1', 'i2', 'i3']) deliveries.enqueue(installation(id), view('p'));
    expect(given.map((event) => event.installationId)).toEqual(['i1', 'i2']);
    await releaseAll();
    await deliveries.settled();
    expect(given.map((event) => event.installationId)).toEqual(['i1', 'i2', 'i3']);
  });

  it('keeps delivering after a delivery throws', async () => {
    let calls = 0;
    const runtime = {
      process: () => (++calls === 1 ? Promise.reject(new Error('tunnel exploded')) : Promise.resolve({ status: 'success', logs: [] })),
    } as unknown as IntegrationRuntime;
    const deliveries = new SiteViewDeliveries(runtime, new ManualClock());
    deliveries.enqueue(installation('i1'), view('p1'));
    deliveries.enqueue(installation('i1'), view('p2'));
    await deliveries.settled();
    expect(calls).toBe(2);
  });
});
