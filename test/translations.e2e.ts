/**
 * Translation settings through HTTP against the embedded service: list, create, get, PUT and
 * delete under /v1/orgs/{organizationId}/translations; languages as BCP 47 tags (the IANA registry,
 * canonical form); who may read and change them; pagination; the event stream and the audit log.
 *
 * The people: ada administers the organization; cara creates content (role `create`); rita reads;
 * gus is a guest; olga belongs to another organization only.
 */
import { joinAs } from './support/members';
import { cleanUpServices, expectError, ok, startService, type RunningService } from './support/service';

interface Person {
  id: string;
  token: string;
}

let service: RunningService;
let organizationId: string;
const people: Record<'ada' | 'cara' | 'rita' | 'gus' | 'olga', Person> = {} as never;
const call = (person: Person | null, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  service.request(method, path, { token: person?.token, body, headers });
const translations = (organization = organizationId) => `/v1/orgs/${organization}/translations`;
/** Settings made by ada, the admin. */
const settings = async (body: { title: string; languages?: string[] } = { title: 'Docs abroad', languages: ['fr'] }) =>
  ok(await call(people.ada, 'POST', translations(), body), 201).body;

beforeAll(async () => {
  service = await startService();
  for (const name of ['ada', 'cara', 'rita', 'gus', 'olga'] as const) {
    const created = await service.createUser(`${name}@translations.example`, name);
    people[name] = { id: created.user.id, token: created.token };
  }
  organizationId = ok(await call(people.ada, 'POST', '/v1/orgs', { title: 'Translations Inc' }), 201).body.id;
  await joinAs(service, organizationId, people.ada.token, [
    { token: people.cara.token, email: 'cara@translations.example', role: 'create' },
    { token: people.rita.token, email: 'rita@translations.example', role: 'read' },
    { token: people.gus.token, email: 'gus@translations.example', role: null },
  ]);
  ok(await call(people.olga, 'POST', '/v1/orgs', { title: 'Olga’s' }), 201);
});

afterAll(cleanUpServices);

describe('POST /v1/orgs/{organizationId}/translations', () => {
  it('creates settings with a title and languages: 201, every field of the resource, and an ETag', async () => {
    const response = ok(await call(people.ada, 'POST', translations(), { title: 'Docs in Europe', languages: ['fr', 'de-CH'] }), 201);
    expect(response.body).toEqual({
      object: 'translation-settings',
      id: expect.stringMatching(/^[0-9A-Za-z]{20}$/),
      title: 'Docs in Europe',
      languages: ['fr', 'de-CH'],
      createdAt: expect.any(String),
      updatedAt: response.body.createdAt,
      permissions: { view: true, edit: true },
      urls: { location: `${service.url}${translations()}/${response.body.id}` },
    });
    expect(response.headers.etag).toBe('"0"');
  });

  it('creates settings from the title alone, with no languages', async () => {
    expect(ok(await call(people.ada, 'POST', translations(), { title: 'Later' }), 201).body.languages).toEqual([]);
  });

  it('stores languages in canonical form', async () => {
    expect((await settings({ title: 'Canonical', languages: ['EN-gb', 'zh-hant-tw', 'iw', 'en-Latn-US'] })).languages).toEqual([
      'en-GB',
      'zh-Hant-TW',
      'he',
      'en-US',
    ]);
  });

  it('refuses a language the IANA registry does not know with 400 naming it', async () => {
    expectError(await call(people.ada, 'POST', translations(), { title: 'Bad', languages: ['fr', 'xx-YY'] }), 400, /"xx-YY"/);
  });

  it('refuses a malformed language tag with 400 naming it', async () => {
    expectError(await call(people.ada, 'POST', translations(), { title: 'Bad', languages: ['en_US'] }), 400, /"en_US"/);
  });

  it('refuses one language listed twice under two spellings with 400 naming both', async () => {
    expectError(await call(people.ada, 'POST', translations(), { title: 'Twice', languages: ['he', 'iw'] }), 400, /"he" and "iw"/);
  });

  it('refuses languages that are not a list of strings with 400', async () => {
    expectError(await call(people.ada, 'POST', translations(), { title: 'Bad', languages: 'fr' }), 400, /languages/);
  });

  it('refuses more than 100 languages with 400', async () => {
    expectError(
      await call(people.ada, 'POST', translations(), { title: 'Many', languages: Array.from({ length: 101 }, () => 'fr') }),
      400,
      /languages/,
    );
  });

  it('refuses a missing title with 400', async () => {
    expectError(await call(people.ada, 'POST', translations(), { languages: ['fr'] }), 400, /title/);
  });

  it('refuses a blank title with 400', async () => {
    expectError(await call(people.ada, 'POST', translations(), { title: ' \u200b ' }), 400, /title/);
  });

  it('refuses a title over 128 characters with 400', async () => {
    expectError(await call(people.ada, 'POST', translations(), { title: 'x'.repeat(129) }), 400, /title/);
  });

  it('refuses unknown members with 400', async () => {
    expectError(await call(people.ada, 'POST', translations(), { title: 'Extra', source: 'space' }), 400, /source/);
  });

  it('refuses a member below admin (create) with 403', async () => {
    expectError(await call(people.cara, 'POST', translations(), { title: 'Mine' }), 403);
  });

  it('refuses a member below admin before looking at the languages (403, not 400)', async () => {
    expectError(await call(people.rita, 'POST', translations(), { title: 'Mine', languages: ['xx-YY'] }), 403);
  });

  it('answers 404 to people outside the organization', async () => {
    expectError(await call(people.olga, 'POST', translations(), { title: 'Theirs' }), 404);
  });

  it('answers 401 without a token', async () => {
    expectError(await call(null, 'POST', translations(), { title: 'Anyone' }), 401);
  });
});

describe('GET /v1/orgs/{organizationId}/translations/{translationSettingsId}', () => {
  it('shows a member with a role the settings, with view but not edit, and the ETag', async () => {
    const created = await settings();
    const response = ok(await call(people.rita, 'GET', `${translations()}/${created.id}`));
    expect(response.body).toEqual({ ...created, permissions: { view: true, edit: false } });
    expect(response.headers.etag).toBe('"0"');
  });

  it('shows an admin edit: true', async () => {
    const created = await settings();
    expect(ok(await call(people.ada, 'GET', `${translations()}/${created.id}`)).body.permissions).toEqual({ view: true, edit: true });
  });

  it('refuses a guest with 403', async () => {
    const created = await settings();
    expectError(await call(people.gus, 'GET', `${translations()}/${created.id}`), 403);
  });

  it('answers 404 to people outside the organization', async () => {
    const created = await settings();
    expectError(await call(people.olga, 'GET', `${translations()}/${created.id}`), 404);
  });

  it('answers 404 for settings of another organization named through this one', async () => {
    const elsewhere = ok(await call(people.ada, 'POST', '/v1/orgs', { title: 'Ada’s second' }), 201).body.id;
    const theirs = ok(await call(people.ada, 'POST', translations(elsewhere), { title: 'Elsewhere' }), 201).body;
    expectError(await call(people.ada, 'GET', `${translations()}/${theirs.id}`), 404);
  });

  it('answers 404 for an id that cannot be one', async () => {
    expectError(await call(people.ada, 'GET', `${translations()}/__proto__`), 404);
  });

  it('answers 404 for unknown settings', async () => {
    expectError(await call(people.ada, 'GET', `${translations()}/NoSuchSettings000000`), 404);
  });
});

describe('PUT /v1/orgs/{organizationId}/translations/{translationSettingsId}', () => {
  it('sets the title and languages: 200 with the settings, updatedAt moved and a new ETag', async () => {
    const created = await settings();
    const response = ok(
      await call(people.ada, 'PUT', `${translations()}/${created.id}`, { title: 'Docs in Asia', languages: ['ja', 'ko'] }),
    );
    expect(response.body).toEqual({ ...created, title: 'Docs in Asia', languages: ['ja', 'ko'], updatedAt: expect.any(String) });
    expect(response.body.updatedAt >= created.updatedAt).toBe(true);
    expect(response.headers.etag).toBe('"1"');
  });

  it('keeps the languages when the body has the title alone', async () => {
    const created = await settings({ title: 'Kept', languages: ['fr', 'it'] });
    expect(ok(await call(people.ada, 'PUT', `${translations()}/${created.id}`, { title: 'Renamed' })).body).toMatchObject({
      title: 'Renamed',
      languages: ['fr', 'it'],
    });
  });

  it('empties the languages when given an empty list', async () => {
    const created = await settings();
    expect(ok(await call(people.ada, 'PUT', `${translations()}/${created.id}`, { title: 'None', languages: [] })).body.languages).toEqual(
      [],
    );
  });

  it('stores languages in canonical form', async () => {
    const created = await settings();
    expect(
      ok(await call(people.ada, 'PUT', `${translations()}/${created.id}`, { title: 'Canonical', languages: ['pt-br', 'zh-yue'] })).body
        .languages,
    ).toEqual(['pt-BR', 'yue']);
  });

  it('changes nothing when set to what it is: same ETag', async () => {
    const created = await settings({ title: 'Same', languages: ['fr'] });
    expect(ok(await call(people.ada, 'PUT', `${translations()}/${created.id}`, { title: 'Same', languages: ['FR'] })).headers.etag).toBe(
      '"0"',
    );
  });

  it('refuses an invalid language with 400 naming it, and keeps the settings', async () => {
    const created = await settings();
    expectError(
      await call(people.ada, 'PUT', `${translations()}/${created.id}`, { title: 'Bad', languages: ['de', 'klingon'] }),
      400,
      /"klingon"/,
    );
    expect(ok(await call(people.ada, 'GET', `${translations()}/${created.id}`)).body).toEqual(created);
  });

  it('refuses a body without a title with 400', async () => {
    const created = await settings();
    expectError(await call(people.ada, 'PUT', `${translations()}/${created.id}`, { languages: ['de'] }), 400, /title/);
  });

  it('applies with a current If-Match', async () => {
    const created = await settings();
    expect(
      ok(await call(people.ada, 'PUT', `${translations()}/${created.id}`, { title: 'Conditional' }, { 'if-match': '"0"' })).body.title,
    ).toBe('Conditional');
  });

  it('refuses a stale If-Match with 412', async () => {
    const created = await settings();
    ok(await call(people.ada, 'PUT', `${translations()}/${created.id}`, { title: 'First' }));
    expectError(await call(people.ada, 'PUT', `${translations()}/${created.id}`, { title: 'Second' }, { 'if-match': '"0"' }), 412);
  });

  it('refuses a member below admin with 403', async () => {
    const created = await settings();
    expectError(await call(people.cara, 'PUT', `${translations()}/${created.id}`, { title: 'Mine' }), 403);
  });

  it('answers 404 to people outside the organization', async () => {
    const created = await settings();
    expectError(await call(people.olga, 'PUT', `${translations()}/${created.id}`, { title: 'Theirs' }), 404);
  });

  it('answers 404 for deleted settings', async () => {
    const created = await settings();
    ok(await call(people.ada, 'DELETE', `${translations()}/${created.id}`), 205);
    expectError(await call(people.ada, 'PUT', `${translations()}/${created.id}`, { title: 'Back' }), 404);
  });
});

describe('DELETE /v1/orgs/{organizationId}/translations/{translationSettingsId}', () => {
  it('deletes with 205 and an empty body', async () => {
    const created = await settings();
    const response = ok(await call(people.ada, 'DELETE', `${translations()}/${created.id}`), 205);
    expect(response.text).toBe('');
  });

  it('answers 404 for the settings afterwards', async () => {
    const created = await settings();
    ok(await call(people.ada, 'DELETE', `${translations()}/${created.id}`), 205);
    expectError(await call(people.ada, 'GET', `${translations()}/${created.id}`), 404);
  });

  it('leaves them out of the list afterwards', async () => {
    const created = await settings();
    ok(await call(people.ada, 'DELETE', `${translations()}/${created.id}`), 205);
    const ids = ok(await call(people.ada, 'GET', `${translations()}?limit=1000`)).body.items.map((item: { id: string }) => item.id);
    expect(ids).not.toContain(created.id);
  });

  it('answers 404 when deleting them again', async () => {
    const created = await settings();
    ok(await call(people.ada, 'DELETE', `${translations()}/${created.id}`), 205);
    expectError(await call(people.ada, 'DELETE', `${translations()}/${created.id}`), 404);
  });

  it('refuses a stale If-Match with 412', async () => {
    const created = await settings();
    ok(await call(people.ada, 'PUT', `${translations()}/${created.id}`, { title: 'Changed' }));
    expectError(await call(people.ada, 'DELETE', `${translations()}/${created.id}`, undefined, { 'if-match': '"0"' }), 412);
  });

  it('refuses a member below admin with 403', async () => {
    const created = await settings();
    expectError(await call(people.cara, 'DELETE', `${translations()}/${created.id}`), 403);
  });

  it('answers 404 to people outside the organization', async () => {
    const created = await settings();
    expectError(await call(people.olga, 'DELETE', `${translations()}/${created.id}`), 404);
  });
});

describe('GET /v1/orgs/{organizationId}/translations', () => {
  let organization: string;
  let made: Array<{ id: string }>;

  beforeAll(async () => {
    organization = ok(await call(people.ada, 'POST', '/v1/orgs', { title: 'Listed Inc' }), 201).body.id;
    await joinAs(service, organization, people.ada.token, [{ token: people.rita.token, email: 'rita@translations.example', role: 'read' }]);
    made = [];
    for (const title of ['One', 'Two', 'Three'])
      made.push(ok(await call(people.ada, 'POST', translations(organization), { title, languages: ['fr'] }), 201).body);
  });

  it('lists the settings oldest first, with the count', async () => {
    const list = ok(await call(people.rita, 'GET', translations(organization))).body;
    expect(list).toEqual({ count: 3, items: made.map((item) => ({ ...item, permissions: { view: true, edit: false } })) });
  });

  it('pages with limit and the next page token', async () => {
    const first = ok(await call(people.rita, 'GET', `${translations(organization)}?limit=2`)).body;
    expect(first.items.map((item: { title: string }) => item.title)).toEqual(['One', 'Two']);
    const second = ok(
      await call(people.rita, 'GET', `${translations(organization)}?limit=2&page=${encodeURIComponent(first.next.page)}`),
    ).body;
    expect({ titles: second.items.map((item: { title: string }) => item.title), next: second.next, count: second.count }).toEqual({
      titles: ['Three'],
      next: undefined,
      count: 3,
    });
  });

  it('refuses a forged page token with 400', async () => {
    expectError(
      await call(
        people.rita,
        'GET',
        `${translations(organization)}?page=${Buffer.from(JSON.stringify({ v: ['x'] })).toString('base64url')}`,
      ),
      400,
      /page/,
    );
  });

  it('refuses a limit over 1000 with 400', async () => {
    expectError(await call(people.rita, 'GET', `${translations(organization)}?limit=1001`), 400, /limit/);
  });

  it('refuses a guest with 403', async () => {
    expectError(await call(people.gus, 'GET', translations()), 403);
  });

  it('answers 404 to people outside the organization', async () => {
    expectError(await call(people.olga, 'GET', translations(organization)), 404);
  });
});

describe('events and audit', () => {
  it('records every change on the stream translation-<id>, with the actor, the time and the organization', async () => {
    const created = await settings({ title: 'Streamed', languages: ['fr'] });
    ok(await call(people.ada, 'PUT', `${translations()}/${created.id}`, { title: 'Streamed', languages: ['de'] }));
    ok(await call(people.ada, 'DELETE', `${translations()}/${created.id}`), 205);
    const history = ok(await service.request('GET', `/v1/admin/streams/translation-${created.id}`, { token: service.adminToken })).body
      .items;
    const actor = { type: 'user', id: people.ada.id, label: 'ada' };
    expect(history).toEqual([
      expect.objectContaining({
        type: 'TranslationSettingsCreated',
        data: {
          translationSettingsId: created.id,
          organizationId,
          title: 'Streamed',
          languages: ['fr'],
          createdBy: people.ada.id,
          createdAt: created.createdAt,
        },
        metadata: expect.objectContaining({ actor }),
      }),
      expect.objectContaining({
        type: 'TranslationSettingsUpdated',
        data: { translationSettingsId: created.id, organizationId, changes: { languages: ['de'] }, updatedAt: expect.any(String) },
        metadata: expect.objectContaining({ actor }),
      }),
      expect.objectContaining({
        type: 'TranslationSettingsDeleted',
        data: { translationSettingsId: created.id, organizationId, deletedAt: expect.any(String) },
        metadata: expect.objectContaining({ actor }),
      }),
    ]);
  });

  it('shows every change in the organization’s audit log', async () => {
    const created = await settings({ title: 'Audited', languages: ['fr'] });
    ok(await call(people.ada, 'PUT', `${translations()}/${created.id}`, { title: 'Audited again' }));
    ok(await call(people.ada, 'DELETE', `${translations()}/${created.id}`), 205);
    const log = ok(await call(people.ada, 'GET', `/v1/orgs/${organizationId}/audit-events?target=${created.id}&limit=100`)).body.items;
    expect(
      log
        .map((entry: { action: string; actor: { id: string }; target: { type: string; id: string } }) => [
          entry.action,
          entry.actor.id,
          entry.target.type,
          entry.target.id,
        ])
        .sort(),
    ).toEqual([
      ['translation.created', people.ada.id, 'translation-settings', created.id],
      ['translation.deleted', people.ada.id, 'translation-settings', created.id],
      ['translation.updated', people.ada.id, 'translation-settings', created.id],
    ]);
  });
});
