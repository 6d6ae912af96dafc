/**
 * Docs sites through HTTP against the embedded service: sites, their sections and site spaces
 * (defaults, paths, moves), publishing, the published structure as each reader sees it (anonymous,
 * share-key holder, visitor with and without claims), hostnames, spaces leaving sites, and the
 * platform's shapes (the members it requires, the requests it accepts).
 *
 * The people: ada administers the organization; cara creates content (role `create`); rita reads.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { FakeDns } from '#testing/fake-dns';
import { joinAs } from './support/members';
import { platformSchemaProblem } from './support/platform-schema';
import { cleanUpServices, expectError, ok, startService, type Response, type RunningService } from './support/service';

interface Person {
  id: string;
  token: string;
}

let service: RunningService;
/** Answers the TXT lookups of domain verification (DNS_SERVERS). */
let dns: FakeDns;
let organizationId: string;
const people: Record<'ada' | 'cara' | 'rita', Person> = {} as never;
const call = (person: Person | null, method: string, path: string, body?: unknown) =>
  service.request(method, path, { token: person?.token, body });
const sites = () => `/v1/orgs/${organizationId}/sites`;
const space = async (title: string) =>
  ok(await call(people.ada, 'POST', `/v1/orgs/${organizationId}/spaces`, { title }), 201).body.id as string;

/** Verifies `domain` for the organization as its admin would: add it, publish its TXT record, verify (a site's hostname must be in a verified domain). */
async function verifyDomain(domain: string): Promise<void> {
  const domains = `/v1/orgs/${organizationId}/verified-domains`;
  const added = ok(await call(people.ada, 'POST', domains, { domain }), 201).body;
  dns.records.set(added.txtRecord.name, [added.txtRecord.value]);
  ok(await call(people.ada, 'POST', `${domains}/${domain}/verify`));
}

beforeAll(async () => {
  // The visitor-token key set of one test is served on loopback.
  dns = await FakeDns.start();
  service = await startService({ env: { SITES_ALLOW_PRIVATE_NETWORKS: 'true', DNS_SERVERS: dns.server } });
  for (const name of ['ada', 'cara', 'rita'] as const) {
    const created = await service.createUser(`${name}@sites.example`, name);
    people[name] = { id: created.user.id, token: created.token };
  }
  organizationId = ok(await call(people.ada, 'POST', '/v1/orgs', { title: 'Sites Inc' }), 201).body.id;
  await joinAs(service, organizationId, people.ada.token, [
    { token: people.cara.token, email: 'cara@sites.example', role: 'create' },
    { token: people.rita.token, email: 'rita@sites.example', role: 'read' },
  ]);
});

afterAll(async () => {
  await cleanUpServices();
  await dns?.close();
});

describe('sites', () => {
  it('creates a basic site from spaces, the first one the default site space, paths from the titles', async () => {
    const guide = await space('User Guide');
    const api = await space('API');
    const site = ok(await call(people.cara, 'POST', sites(), { title: 'Docs', spaces: [guide, api] }), 201).body;
    expect(site).toMatchObject({
      object: 'site',
      type: 'basic',
      title: 'Docs',
      visibility: 'public',
      published: false,
      siteSpaces: 2,
      agentsContext: 'excluded',
    });
    const siteSpaces = ok(await call(people.rita, 'GET', `${sites()}/${site.id}/site-spaces`)).body.items;
    expect(siteSpaces.map((siteSpace: { path: string; default: boolean }) => [siteSpace.path, siteSpace.default])).toEqual([
      ['user-guide', true],
      ['api', false],
    ]);
    expect(
      ok(await call(people.rita, 'GET', `${sites()}/${site.id}/site-spaces?default=true`)).body.items.map(
        (siteSpace: { path: string }) => siteSpace.path,
      ),
    ).toEqual(['user-guide']);
  });

  it('lists with the space, title and published filters', async () => {
    const only = await space('Only here');
    const site = ok(await call(people.ada, 'POST', sites(), { title: 'Filtered Zebra', spaces: [only] }), 201).body;
    const ids = async (query: string) =>
      ok(await call(people.rita, 'GET', `${sites()}${query}`)).body.items.map((item: { id: string }) => item.id);
    expect(await ids(`?space=${only}`)).toEqual([site.id]);
    expect(await ids('?title=zebra')).toEqual([site.id]);
    expect(await ids('?published=true')).not.toContain(site.id);
  });

  it('lets admins change a site and refuses others (403) and outsiders (404)', async () => {
    const site = ok(await call(people.ada, 'POST', sites(), { title: 'Changing' }), 201).body;
    const changed = ok(
      await call(people.ada, 'PATCH', `${sites()}/${site.id}`, {
        title: 'Changed',
        visibility: 'unlisted',
        basename: 'docs',
        adaptiveContent: { enabled: true },
        agentsContext: 'included',
        proxy: 'example.com/docs',
      }),
    ).body;
    expect(changed).toMatchObject({
      title: 'Changed',
      visibility: 'unlisted',
      basename: 'docs',
      adaptiveContent: { enabled: true },
      agentsContext: 'included',
      proxy: { origin: 'example.com/docs' },
    });
    expectError(await call(people.cara, 'PATCH', `${sites()}/${site.id}`, { title: 'Nope' }), 403);
    expectError(await call(people.ada, 'PATCH', `${sites()}/${site.id}`, { proxy: 'not a proxy' }), 400, /proxy/);
    expectError(await call(people.rita, 'POST', sites(), { title: 'Mine' }), 403);
  });

  it('deletes with 205', async () => {
    const site = ok(await call(people.ada, 'POST', sites(), { title: 'Gone soon' }), 201).body;
    ok(await call(people.ada, 'DELETE', `${sites()}/${site.id}`), 205);
    expectError(await call(people.ada, 'GET', `${sites()}/${site.id}`), 404);
  });

  it('refuses a space of another organization (404)', async () => {
    const elsewhere = ok(await call(people.rita, 'POST', '/v1/orgs', { title: 'Rita’s' }), 201).body.id;
    const theirs = ok(await call(people.rita, 'POST', `/v1/orgs/${elsewhere}/spaces`, { title: 'Theirs' }), 201).body.id;
    expectError(await call(people.ada, 'POST', sites(), { title: 'Borrowing', spaces: [theirs] }), 404);
  });
});

describe('sections and site spaces', () => {
  it('adds sections, the first one the default, each with its space as its default site space', async () => {
    const site = ok(await call(people.ada, 'POST', sites(), { title: 'Sectioned' }), 201).body;
    const first = ok(
      await call(people.ada, 'POST', `${sites()}/${site.id}/sections`, { spaceId: await space('Guides'), title: 'Guides' }),
      201,
    ).body;
    const second = ok(await call(people.ada, 'POST', `${sites()}/${site.id}/sections`, { spaceId: await space('Reference') }), 201).body;
    expect(first).toMatchObject({
      object: 'site-section',
      title: 'Guides',
      path: 'guides',
      default: true,
      siteSpaces: [{ path: 'guides', default: true }],
    });
    expect(second).toMatchObject({ title: 'Reference', default: false });
    const extra = ok(
      await call(people.ada, 'POST', `${sites()}/${site.id}/site-spaces`, { spaceId: await space('Guides'), sectionId: second.id }),
      201,
    ).body;
    expect(extra).toMatchObject({ section: second.id, path: 'guides', default: false });
    ok(
      await call(people.ada, 'PATCH', `${sites()}/${site.id}/sections/${second.id}`, {
        defaultSiteSpace: extra.id,
        condition: 'visitor.claims.beta',
        path: 'ref',
      }),
    );
    const sections = ok(await call(people.rita, 'GET', `${sites()}/${site.id}/sections`)).body.items;
    expect(sections[1]).toMatchObject({ path: 'ref', condition: 'visitor.claims.beta' });
    expect(sections[1].siteSpaces.find((siteSpace: { id: string }) => siteSpace.id === extra.id).default).toBe(true);
    expectError(await call(people.ada, 'PATCH', `${sites()}/${site.id}/sections/${second.id}`, { path: 'guides' }), 409);
    ok(
      await call(people.ada, 'POST', `${sites()}/${site.id}/sections/${second.id}/move`, {
        position: { before: { type: 'site-section', siteSection: first.id } },
      }),
    );
    expect(
      ok(await call(people.rita, 'GET', `${sites()}/${site.id}/sections`)).body.items.map((section: { id: string }) => section.id),
    ).toEqual([second.id, first.id]);
    ok(await call(people.ada, 'DELETE', `${sites()}/${site.id}/sections/${first.id}`), 204);
    expect(ok(await call(people.rita, 'GET', `${sites()}/${site.id}/sections`)).body.items).toEqual([
      expect.objectContaining({ id: second.id, default: true }),
    ]);
  });

  it('keeps one default site space per scope: removing the default hands it to the next', async () => {
    const site = ok(
      await call(people.ada, 'POST', sites(), { title: 'Defaults', spaces: [await space('One'), await space('Two')] }),
      201,
    ).body;
    const [one, two] = ok(await call(people.rita, 'GET', `${sites()}/${site.id}/site-spaces`)).body.items;
    ok(await call(people.ada, 'DELETE', `${sites()}/${site.id}/site-spaces/${one.id}`), 205);
    expect(ok(await call(people.rita, 'GET', `${sites()}/${site.id}/site-spaces`)).body.items).toEqual([
      expect.objectContaining({ id: two.id, default: true }),
    ]);
  });

  it('moves a site space, edits its path and condition, and refuses a path another one has (409)', async () => {
    const site = ok(
      await call(people.ada, 'POST', sites(), { title: 'Moves', spaces: [await space('Alpha'), await space('Beta')] }),
      201,
    ).body;
    const [alpha, beta] = ok(await call(people.rita, 'GET', `${sites()}/${site.id}/site-spaces`)).body.items;
    ok(
      await call(people.ada, 'POST', `${sites()}/${site.id}/site-spaces/${beta.id}/move`, {
        position: { before: { type: 'site-space', siteSpace: alpha.id } },
      }),
    );
    expect(
      ok(await call(people.rita, 'GET', `${sites()}/${site.id}/site-spaces`)).body.items.map((siteSpace: { id: string }) => siteSpace.id),
    ).toEqual([beta.id, alpha.id]);
    expect(
      ok(
        await call(people.ada, 'PATCH', `${sites()}/${site.id}/site-spaces/${alpha.id}`, {
          path: 'first',
          condition: 'visitor.claims.paid',
        }),
      ).body,
    ).toMatchObject({ path: 'first', condition: 'visitor.claims.paid' });
    expectError(await call(people.ada, 'PATCH', `${sites()}/${site.id}/site-spaces/${beta.id}`, { path: 'first' }), 409);
    expectError(await call(people.ada, 'PATCH', `${sites()}/${site.id}/site-spaces/${beta.id}`, { path: 'Not A Path' }), 400);
  });
});

describe('defaults under concurrent changes', () => {
  it('keeps exactly one default section when sections are added and removed at once', async () => {
    const site = ok(await call(people.ada, 'POST', sites(), { title: 'Busy sections' }), 201).body;
    const spaces = await Promise.all(Array.from({ length: 8 }, (_, n) => space(`Busy ${n}`)));
    const added = await Promise.all(
      spaces.map((spaceId, n) => call(people.ada, 'POST', `${sites()}/${site.id}/sections`, { spaceId, title: `Section ${n}` })),
    );
    const ids = added.map((response) => ok(response, 201).body.id as string);
    (
      await Promise.all(ids.slice(0, 4).map((sectionId) => call(people.ada, 'DELETE', `${sites()}/${site.id}/sections/${sectionId}`)))
    ).forEach((response) => ok(response, 204));
    const sections = ok(await call(people.ada, 'GET', `${sites()}/${site.id}/sections`)).body.items as Array<{
      id: string;
      default: boolean;
    }>;
    expect(sections.map((section) => section.id).sort()).toEqual(ids.slice(4).sort());
    expect(sections.filter((section) => section.default)).toHaveLength(1);
  });

  it('keeps exactly one default site space at the root when site spaces are added and removed at once', async () => {
    const site = ok(await call(people.ada, 'POST', sites(), { title: 'Busy spaces' }), 201).body;
    const spaces = await Promise.all(Array.from({ length: 8 }, (_, n) => space(`Variant ${n}`)));
    const added = await Promise.all(spaces.map((spaceId) => call(people.ada, 'POST', `${sites()}/${site.id}/site-spaces`, { spaceId })));
    const ids = added.map((response) => ok(response, 201).body.id as string);
    (
      await Promise.all(
        ids
          .filter((_, n) => n % 2 === 0)
          .map((siteSpaceId) => call(people.ada, 'DELETE', `${sites()}/${site.id}/site-spaces/${siteSpaceId}`)),
      )
    ).forEach((response) => ok(response, 205));
    const siteSpaces = ok(await call(people.ada, 'GET', `${sites()}/${site.id}/site-spaces`)).body.items as Array<{
      id: string;
      default: boolean;
    }>;
    expect(siteSpaces).toHaveLength(4);
    expect(siteSpaces.filter((siteSpace) => siteSpace.default)).toHaveLength(1);
  });
});

describe('section groups', () => {
  it('groups sections, adds and removes one, moves the group as a block, and deletes it leaving its sections', async () => {
    const site = ok(await call(people.ada, 'POST', sites(), { title: 'Grouped' }), 201).body;
    const add = async (title: string) =>
      ok(await call(people.ada, 'POST', `${sites()}/${site.id}/sections`, { spaceId: await space(title), title }), 201).body.id as string;
    const [a, b, c] = [await add('A'), await add('B'), await add('C')];
    const group = ok(
      await call(people.ada, 'POST', `${sites()}/${site.id}/section-groups`, { title: 'Guides', icon: 'book', sections: [b] }),
      201,
    ).body;
    expect(group).toMatchObject({
      object: 'site-section-group',
      title: 'Guides',
      icon: 'book',
      sections: [{ id: b, sectionGroup: group.id }],
    });
    expect(
      ok(
        await call(people.ada, 'POST', `${sites()}/${site.id}/section-groups/${group.id}/sections`, { sectionId: c }),
        201,
      ).body.sections.map((section: { id: string }) => section.id),
    ).toEqual([b, c]);
    ok(
      await call(people.ada, 'POST', `${sites()}/${site.id}/section-groups/${group.id}/move`, {
        position: { before: { type: 'site-section', id: a } },
      }),
    );
    expect(
      ok(await call(people.rita, 'GET', `${sites()}/${site.id}/sections`)).body.items.map((section: { id: string }) => section.id),
    ).toEqual([b, c, a]);
    ok(await call(people.ada, 'DELETE', `${sites()}/${site.id}/section-groups/${group.id}/sections/${b}`), 205);
    expect(
      ok(await call(people.ada, 'PATCH', `${sites()}/${site.id}/section-groups/${group.id}`, { title: 'Renamed' })).body,
    ).toMatchObject({ title: 'Renamed', sections: [{ id: c }] });
    ok(await call(people.ada, 'DELETE', `${sites()}/${site.id}/section-groups/${group.id}`), 205);
    expect(ok(await call(people.rita, 'GET', `${sites()}/${site.id}/section-groups`)).body.items).toEqual([]);
    expect(ok(await call(people.rita, 'GET', `${sites()}/${site.id}/sections`)).body.count).toBe(3);
    expectError(
      await call(people.ada, 'POST', `${sites()}/${site.id}/section-groups`, { title: 'Bad', sections: ['NoSuchSection0000000'] }),
      404,
    );
  });
});

describe('the structure', () => {
  it('reads groups and sections in order, and sorts the whole structure in one call', async () => {
    const site = ok(await call(people.ada, 'POST', sites(), { title: 'Structured' }), 201).body;
    const add = async (title: string) =>
      ok(await call(people.ada, 'POST', `${sites()}/${site.id}/sections`, { spaceId: await space(title), title }), 201).body.id as string;
    const [a, b, c] = [await add('A'), await add('B'), await add('C')];
    const group = ok(
      await call(people.ada, 'POST', `${sites()}/${site.id}/section-groups`, { title: 'Group', sections: [b, c] }),
      201,
    ).body;
    const extra = ok(
      await call(people.ada, 'POST', `${sites()}/${site.id}/site-spaces`, { spaceId: await space('Extra'), sectionId: a }),
      201,
    ).body;
    const [first] = ok(await call(people.rita, 'GET', `${sites()}/${site.id}/sections`)).body.items[0].siteSpaces;
    const shape = (structure: Array<{ type: string; id: string; sections?: Array<{ id: string }> }>) =>
      structure.map((entry) => (entry.type === 'group' ? [entry.id, entry.sections!.map((section) => section.id)] : entry.id));
    expect(shape(ok(await call(people.rita, 'GET', `${sites()}/${site.id}/structure`)).body.structure)).toEqual([a, [group.id, [b, c]]]);
    const sorted = ok(
      await call(people.ada, 'PATCH', `${sites()}/${site.id}/structure/sort`, {
        structure: [
          { type: 'group', id: group.id, sections: [{ id: c }, { id: b }] },
          { type: 'section', id: a, siteSpaces: [extra.id, first.id] },
        ],
      }),
    ).body;
    expect(shape(sorted.structure)).toEqual([[group.id, [c, b]], a]);
    expect(sorted.structure[1].siteSpaces.map((siteSpace: { id: string }) => siteSpace.id)).toEqual([extra.id, first.id]);
    expectError(
      await call(people.ada, 'PATCH', `${sites()}/${site.id}/structure/sort`, { structure: [{ type: 'section', id: a }] }),
      400,
      /every section/,
    );
    expectError(
      await call(people.ada, 'PATCH', `${sites()}/${site.id}/structure/sort`, {
        structure: [
          { type: 'section', id: a },
          { type: 'section', id: b },
          { type: 'section', id: c },
        ],
      }),
      400,
      /outside any group/,
    );
  });
});

describe('adaptive content', () => {
  const schema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      beta: { type: 'boolean', description: 'In the beta' },
      unsigned: { type: 'object', properties: { eu: { type: 'boolean', description: 'In the EU' } }, additionalProperties: false },
    },
    additionalProperties: false,
  };

  it('keeps the adaptive schema and derives template conditions from it', async () => {
    const site = ok(await call(people.ada, 'POST', sites(), { title: 'Adaptive' }), 201).body;
    expect(ok(await call(people.rita, 'GET', `${sites()}/${site.id}/adaptive-schema`)).body).toMatchObject({
      object: 'site-adaptive-schema',
      jsonSchema: { type: 'object', properties: {} },
    });
    expect(ok(await call(people.ada, 'PUT', `${sites()}/${site.id}/adaptive-schema`, { jsonSchema: schema })).body.jsonSchema).toEqual(
      schema,
    );
    expect(ok(await call(people.rita, 'GET', `${sites()}/${site.id}/adaptive-schema/template-conditions`)).body.items).toEqual([
      { description: 'In the beta', condition: 'visitor.claims.beta' },
      { description: 'In the EU', condition: 'visitor.claims.unsigned.eu' },
    ]);
  });

  it('refuses a schema of another shape, naming the member', async () => {
    const site = ok(await call(people.ada, 'POST', sites(), { title: 'Strict' }), 201).body;
    expectError(
      await call(people.ada, 'PUT', `${sites()}/${site.id}/adaptive-schema`, {
        jsonSchema: { ...schema, properties: { beta: { type: 'string', description: 'x' } } },
      }),
      400,
      /properties\.beta\.type/,
    );
    expectError(
      await call(people.ada, 'PUT', `${sites()}/${site.id}/adaptive-schema`, { jsonSchema: { type: 'object', properties: {} } }),
      400,
      /additionalProperties/,
    );
    expectError(
      await call(people.ada, 'PUT', `${sites()}/${site.id}/adaptive-schema`, { jsonSchema: { type: 42 } }),
      400,
      /not a JSON Schema/,
    );
    expectError(await call(people.cara, 'PUT', `${sites()}/${site.id}/adaptive-schema`, { jsonSchema: schema }), 403);
  });
});

describe('publishing', () => {
  it('serves the published structure to anyone once a public site is published, and 404 before', async () => {
    const site = ok(await call(people.ada, 'POST', sites(), { title: 'Public docs', spaces: [await space('Handbook')] }), 201).body;
    expectError(await call(null, 'GET', `${sites()}/${site.id}/published`), 404);
    expect(ok(await call(people.ada, 'POST', `${sites()}/${site.id}/publish`)).body.published).toBe(true);
    const published = ok(await call(null, 'GET', `${sites()}/${site.id}/published`)).body;
    expect(published).toMatchObject({
      object: 'published-content-site',
      site: { id: site.id, published: true },
      structure: { type: 'siteSpaces', structure: [{ path: 'handbook', title: 'Handbook' }] },
    });
    ok(await call(people.ada, 'POST', `${sites()}/${site.id}/unpublish`));
    expectError(await call(null, 'GET', `${sites()}/${site.id}/published`), 404);
  });

  it('leaves out of the published structure what a condition hides from an anonymous reader, and refuses an invalid condition', async () => {
    const site = ok(
      await call(people.ada, 'POST', sites(), { title: 'Conditional', spaces: [await space('Open'), await space('Beta only')] }),
      201,
    ).body;
    const [, beta] = ok(await call(people.rita, 'GET', `${sites()}/${site.id}/site-spaces`)).body.items;
    ok(await call(people.ada, 'PATCH', `${sites()}/${site.id}/site-spaces/${beta.id}`, { condition: 'visitor.claims.beta == true' }));
    expectError(
      await call(people.ada, 'PATCH', `${sites()}/${site.id}/site-spaces/${beta.id}`, { condition: 'process.exit()' }),
      400,
      /condition/,
    );
    ok(await call(people.ada, 'POST', `${sites()}/${site.id}/publish`));
    expect(
      ok(await call(null, 'GET', `${sites()}/${site.id}/published`)).body.structure.structure.map(
        (siteSpace: { title: string }) => siteSpace.title,
      ),
    ).toEqual(['Open']);
  });

  it('keeps share-link and visitor-auth sites from anonymous readers', async () => {
    for (const visibility of ['share-link', 'visitor-auth']) {
      const site = ok(await call(people.ada, 'POST', sites(), { title: 'Private docs', visibility }), 201).body;
      ok(await call(people.ada, 'POST', `${sites()}/${site.id}/publish`));
      expectError(await call(null, 'GET', `${sites()}/${site.id}/published`), 404);
    }
  });
});

describe('share links', () => {
  const published = async (visibility: string) => {
    const site = ok(
      await call(people.ada, 'POST', sites(), { title: 'Shared docs', visibility, spaces: [await space('Shared')] }),
      201,
    ).body;
    ok(await call(people.ada, 'POST', `${sites()}/${site.id}/publish`));
    return site.id as string;
  };

  it('creates a share link (201) whose key opens the published share-link site', async () => {
    const siteId = await published('share-link');
    const link = ok(await call(people.ada, 'POST', `${sites()}/${siteId}/share-links`, { name: 'Partners' }), 201).body;
    expect(link).toMatchObject({ object: 'share-link', name: 'Partners', active: true, key: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/) });
    expect(ok(await call(null, 'GET', `${sites()}/${siteId}/published?shareKey=${link.key}`)).body.site.id).toBe(siteId);
  });

  it('refuses a reader with a wrong key (404)', async () => {
    const siteId = await published('share-link');
    ok(await call(people.ada, 'POST', `${sites()}/${siteId}/share-links`, {}), 201);
    expectError(await call(null, 'GET', `${sites()}/${siteId}/published?shareKey=${'x'.repeat(32)}`), 404);
  });

  it('stops opening the site once deactivated or deleted', async () => {
    const siteId = await published('share-link');
    const link = ok(await call(people.ada, 'POST', `${sites()}/${siteId}/share-links`, {}), 201).body;
    expect(ok(await call(people.ada, 'PATCH', `${sites()}/${siteId}/share-links/${link.id}`, { active: false })).body.active).toBe(false);
    expectError(await call(null, 'GET', `${sites()}/${siteId}/published?shareKey=${link.key}`), 404);
    ok(await call(people.ada, 'PATCH', `${sites()}/${siteId}/share-links/${link.id}`, { active: true }));
    ok(await call(null, 'GET', `${sites()}/${siteId}/published?shareKey=${link.key}`));
    ok(await call(people.ada, 'DELETE', `${sites()}/${siteId}/share-links/${link.id}`), 205);
    expectError(await call(null, 'GET', `${sites()}/${siteId}/published?shareKey=${link.key}`), 404);
    expect(ok(await call(people.ada, 'GET', `${sites()}/${siteId}/share-links`)).body.items).toEqual([]);
  });

  it('shows share links to administrators only: members get 403', async () => {
    const siteId = await published('share-link');
    ok(await call(people.ada, 'POST', `${sites()}/${siteId}/share-links`, {}), 201);
    expect(ok(await call(people.ada, 'GET', `${sites()}/${siteId}/share-links`)).body.count).toBe(1);
    expectError(await call(people.rita, 'GET', `${sites()}/${siteId}/share-links`), 403);
    expectError(await call(people.cara, 'POST', `${sites()}/${siteId}/share-links`, {}), 403);
  });

  it('lets a share-key holder outside the organization list the sections and site spaces of the shared site', async () => {
    const siteId = await published('share-link');
    const link = ok(await call(people.ada, 'POST', `${sites()}/${siteId}/share-links`, {}), 201).body;
    const olga = await service.createUser('olga@elsewhere.example', 'olga');
    const outsider = { id: olga.user.id, token: olga.token };
    expectError(await call(outsider, 'GET', `${sites()}/${siteId}/site-spaces`), 404);
    expect(
      ok(await call(outsider, 'GET', `${sites()}/${siteId}/site-spaces?shareKey=${link.key}`)).body.items.map(
        (item: { title: string }) => item.title,
      ),
    ).toEqual(['Shared']);
    expect(ok(await call(outsider, 'GET', `${sites()}/${siteId}/sections?shareKey=${link.key}`)).body.items).toEqual([]);
  });
});

describe('visitor authentication', () => {
  let siteId: string;
  let secret: string;
  const hs256 = (claims: Record<string, unknown>, key = secret, expires = '1h') =>
    new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(expires).sign(new TextEncoder().encode(key));
  const publishedWith = (token: string) => call(null, 'GET', `${sites()}/${siteId}/published?jwt_token=${token}`);

  beforeAll(async () => {
    const site = ok(
      await call(people.ada, 'POST', sites(), {
        title: 'Members area',
        visibility: 'visitor-auth',
        spaces: [await space('Everyone'), await space('Partners only')],
      }),
      201,
    ).body;
    siteId = site.id;
    const [, partners] = ok(await call(people.ada, 'GET', `${sites()}/${siteId}/site-spaces`)).body.items;
    ok(await call(people.ada, 'PATCH', `${sites()}/${siteId}/site-spaces/${partners.id}`, { condition: 'visitor.claims.partner == true' }));
    ok(await call(people.ada, 'POST', `${sites()}/${siteId}/publish`));
    secret = ok(await call(people.ada, 'GET', `${sites()}/${siteId}/visitor-auth`)).body.secret;
  });

  it('admits a visitor whose token is signed with the site key (HS256)', async () => {
    expect(ok(await publishedWith(await hs256({}))).body.site.id).toBe(siteId);
  });

  it('feeds the token claims to the conditions: a visitor with the claim sees what one without does not', async () => {
    const titles = async (claims: Record<string, unknown>) =>
      ok(await publishedWith(await hs256(claims))).body.structure.structure.map((item: { title: string }) => item.title);
    expect(await titles({})).toEqual(['Everyone']);
    expect(await titles({ partner: true })).toEqual(['Everyone', 'Partners only']);
  });

  it('refuses a visitor with no token, a token signed with another key, or an expired one (404)', async () => {
    expectError(await call(null, 'GET', `${sites()}/${siteId}/published`), 404);
    expectError(await publishedWith(await hs256({}, 'not-the-site-key')), 404);
    expectError(
      await publishedWith(
        await new SignJWT({})
          .setProtectedHeader({ alg: 'HS256' })
          .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
          .sign(new TextEncoder().encode(secret)),
      ),
      404,
    );
  });

  it('refuses a token without an expiry (404)', async () => {
    expectError(
      await publishedWith(await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret))),
      404,
    );
  });

  it('refuses tokens of the previous key once the key is rotated', async () => {
    const before = await hs256({});
    const rotated = ok(await call(people.ada, 'POST', `${sites()}/${siteId}/visitor-auth/rotate`)).body.secret;
    expect(rotated).not.toBe(secret);
    secret = rotated;
    expectError(await publishedWith(before), 404);
    ok(await publishedWith(await hs256({})));
  });

  it('shows the site key to administrators only: members get 403', async () => {
    expectError(await call(people.rita, 'GET', `${sites()}/${siteId}/visitor-auth`), 403);
  });

  describe('with a JWKS URL', () => {
    let server: Server;
    let keys: Awaited<ReturnType<typeof generateKeyPair>>;

    beforeAll(async () => {
      keys = await generateKeyPair('RS256');
      const jwks = { keys: [{ ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] };
      server = createServer((_request, response) =>
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks)),
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
      expect(ok(await call(people.ada, 'PUT', `${sites()}/${siteId}/visitor-auth`, { jwksUrl: url })).body).toMatchObject({
        jwksUrl: url,
        algorithms: ['HS256', 'RS256'],
      });
    });

    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('admits a visitor whose token is signed with a key of the set (RS256) for this site (aud), with its claims', async () => {
      const token = await new SignJWT({ partner: true, aud: siteId })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setExpirationTime('1h')
        .sign(keys.privateKey);
      expect(ok(await publishedWith(token)).body.structure.structure).toHaveLength(2);
    });

    it('refuses an RS256 token signed with a key outside the set (404)', async () => {
      const stranger = await generateKeyPair('RS256');
      expectError(
        await publishedWith(
          await new SignJWT({ aud: siteId })
            .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
            .setExpirationTime('1h')
            .sign(stranger.privateKey),
        ),
        404,
      );
    });
  });
});

describe('every visibility, as each reader sees it', () => {
  type Reader = 'admin' | 'member' | 'anonymous' | 'share-key holder' | 'visitor with the claim' | 'visitor without it';
  const READERS: Reader[] = ['admin', 'member', 'anonymous', 'share-key holder', 'visitor with the claim', 'visitor without it'];
  // What each reader sees of a site with an open site space and one for partners only: null is 404.
  const everyone = ['Open to all'];
  const partners = ['Open to all', 'Partners'];
  const SEEN: Record<string, Record<Reader, string[] | null>> = {
    public: {
      admin: everyone,
      member: everyone,
      anonymous: everyone,
      'share-key holder': everyone,
      'visitor with the claim': partners,
      'visitor without it': everyone,
    },
    unlisted: {
      admin: everyone,
      member: everyone,
      anonymous: everyone,
      'share-key holder': everyone,
      'visitor with the claim': partners,
      'visitor without it': everyone,
    },
    'share-link': {
      admin: everyone,
      member: everyone,
      anonymous: null,
      'share-key holder': everyone,
      'visitor with the claim': null,
      'visitor without it': null,
    },
    'visitor-auth': {
      admin: everyone,
      member: everyone,
      anonymous: null,
      'share-key holder': null,
      'visitor with the claim': partners,
      'visitor without it': everyone,
    },
  };

  for (const [visibility, expected] of Object.entries(SEEN)) {
    describe(`a ${visibility} site`, () => {
      const sees: Partial<Record<Reader, string[] | null>> = {};

      beforeAll(async () => {
        const site = ok(
          await call(people.ada, 'POST', sites(), {
            title: `Seen ${visibility}`,
            visibility,
            spaces: [await space('Open to all'), await space('Partners')],
          }),
          201,
        ).body;
        const [, partnersOnly] = ok(await call(people.ada, 'GET', `${sites()}/${site.id}/site-spaces`)).body.items;
        ok(
          await call(people.ada, 'PATCH', `${sites()}/${site.id}/site-spaces/${partnersOnly.id}`, {
            condition: 'visitor.claims.partner == true',
          }),
        );
        ok(await call(people.ada, 'POST', `${sites()}/${site.id}/publish`));
        const key = ok(await call(people.ada, 'POST', `${sites()}/${site.id}/share-links`, {}), 201).body.key;
        const secret = new TextEncoder().encode(ok(await call(people.ada, 'GET', `${sites()}/${site.id}/visitor-auth`)).body.secret);
        const token = (claims: Record<string, unknown>) =>
          new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(secret);
        const published = `${sites()}/${site.id}/published`;
        const asked: Record<Reader, () => Promise<Response>> = {
          admin: () => call(people.ada, 'GET', published),
          member: () => call(people.rita, 'GET', published),
          anonymous: () => call(null, 'GET', published),
          'share-key holder': () => call(null, 'GET', `${published}?shareKey=${key}`),
          'visitor with the claim': async () => call(null, 'GET', `${published}?jwt_token=${await token({ partner: true })}`),
          'visitor without it': async () => call(null, 'GET', `${published}?jwt_token=${await token({})}`),
        };
        for (const reader of READERS) {
          const response = await asked[reader]();
          sees[reader] =
            response.status === 404 ? null : ok(response).body.structure.structure.map((item: { title: string }) => item.title);
        }
      });

      for (const reader of READERS) {
        it(`${expected[reader] === null ? 'is not found by' : 'shows what its conditions let through to'} the ${reader}`, () => {
          expect(sees[reader]).toEqual(expected[reader]);
        });
      }
    });
  }
});

describe('hostnames, icons and new spaces', () => {
  it('sets a custom hostname and refuses one another site holds (409)', async () => {
    await verifyDomain('first.example');
    const first = ok(await call(people.ada, 'POST', sites(), { title: 'First host' }), 201).body;
    const second = ok(await call(people.ada, 'POST', sites(), { title: 'Second host' }), 201).body;
    expect(ok(await call(people.ada, 'PATCH', `${sites()}/${first.id}`, { hostname: 'docs.first.example' })).body.hostname).toBe(
      'docs.first.example',
    );
    expectError(await call(people.ada, 'PATCH', `${sites()}/${second.id}`, { hostname: 'docs.first.example' }), 409, /hostname/);
    expect(ok(await call(people.ada, 'GET', `${sites()}/${second.id}`)).body.hostname).toBeUndefined();
  });

  it('frees a hostname when its site lets it go or is deleted', async () => {
    await verifyDomain('moving.example');
    const first = ok(await call(people.ada, 'POST', sites(), { title: 'Moving host' }), 201).body;
    const second = ok(await call(people.ada, 'POST', sites(), { title: 'Next host' }), 201).body;
    ok(await call(people.ada, 'PATCH', `${sites()}/${first.id}`, { hostname: 'docs.moving.example' }));
    ok(await call(people.ada, 'PATCH', `${sites()}/${first.id}`, { hostname: 'help.moving.example' }));
    ok(await call(people.ada, 'PATCH', `${sites()}/${second.id}`, { hostname: 'docs.moving.example' }));
    ok(await call(people.ada, 'DELETE', `${sites()}/${first.id}`), 205);
    ok(await call(people.ada, 'PATCH', `${sites()}/${second.id}`, { hostname: 'help.moving.example' }));
  });

  it('refuses a hostname of the wrong shape (400)', async () => {
    const site = ok(await call(people.ada, 'POST', sites(), { title: 'Bad host' }), 201).body;
    expectError(await call(people.ada, 'PATCH', `${sites()}/${site.id}`, { hostname: 'localhost' }), 400, /hostname/);
  });

  it('sets and removes an icon', async () => {
    const site = ok(await call(people.ada, 'POST', sites(), { title: 'Iconic' }), 201).body;
    const icon = { icon: { light: 'https://cdn.example.com/light.png', dark: 'https://cdn.example.com/dark.png' } };
    expect(ok(await call(people.ada, 'PATCH', `${sites()}/${site.id}`, { icon })).body.icon).toEqual(icon);
    expect(ok(await call(people.ada, 'PATCH', `${sites()}/${site.id}`, { icon: null })).body.icon).toBeUndefined();
  });

  it("creates a site with a new space named after it (spaces: 'new')", async () => {
    const site = ok(await call(people.cara, 'POST', sites(), { title: 'Fresh start', spaces: 'new' }), 201).body;
    const [siteSpace] = ok(await call(people.rita, 'GET', `${sites()}/${site.id}/site-spaces`)).body.items;
    expect(siteSpace).toMatchObject({ title: 'Fresh start', path: 'fresh-start', default: true });
  });

  it('refuses another spaces value (400)', async () => {
    expectError(await call(people.ada, 'POST', sites(), { title: 'Odd', spaces: 'old' }), 400, /spaces/);
  });
});

describe('deleted spaces', () => {
  it('leave the sites that showed them, the default moving on', async () => {
    const doomed = await space('Doomed');
    const kept = await space('Kept');
    const site = ok(await call(people.ada, 'POST', sites(), { title: 'Survivor', spaces: [doomed, kept] }), 201).body;
    ok(await call(people.ada, 'DELETE', `/v1/spaces/${doomed}`), 204);
    const items = async () => ok(await call(people.ada, 'GET', `${sites()}/${site.id}/site-spaces`)).body.items;
    for (let attempt = 0; attempt < 50 && (await items()).length !== 1; attempt += 1)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await items()).map((item: { title: string; default: boolean }) => [item.title, item.default])).toEqual([['Kept', true]]);
  });
});

describe('spaces transferred to another organization', () => {
  /** Site "Root shelf" shows Kept then Moving at its root; site "Sectioned" has a section for each, Moving's the default. */
  let rootShelf: string;
  let sectioned: string;
  let moving: string;
  const page = (title: string, markdown: string) => ({ operation: 'insert_page', title, document: { markdown } });
  const siteSpaceTitles = async (siteId: string) =>
    ok(await call(people.ada, 'GET', `${sites()}/${siteId}/site-spaces`)).body.items.map((item: { title: string; default: boolean }) => [
      item.title,
      item.default,
    ]);
  const html = (path: string) => service.request('GET', path);

  beforeAll(async () => {
    const kept = await space('Kept');
    moving = await space('Moving');
    ok(await call(people.ada, 'POST', `/v1/spaces/${kept}/content`, { changes: [page('Kept page', 'Still here.')] }));
    ok(
      await call(people.ada, 'POST', `/v1/spaces/${moving}/content`, {
        changes: [page('Before transfer', 'Written in the old organization.')],
      }),
    );
    rootShelf = ok(await call(people.ada, 'POST', sites(), { title: 'Root shelf', spaces: [kept, moving] }), 201).body.id;
    sectioned = ok(await call(people.ada, 'POST', sites(), { title: 'Sectioned' }), 201).body.id;
    ok(await call(people.ada, 'POST', `${sites()}/${sectioned}/sections`, { spaceId: moving, title: 'Moving section' }), 201);
    ok(await call(people.ada, 'POST', `${sites()}/${sectioned}/sections`, { spaceId: kept, title: 'Kept section' }), 201);
    for (const siteId of [rootShelf, sectioned]) ok(await call(people.ada, 'POST', `${sites()}/${siteId}/publish`));
    // Served before the transfer: what follows is not a page that never existed.
    expect((await html(`/sites/${rootShelf}/moving/before-transfer`)).status).toBe(200);

    const elsewhere = ok(await call(people.ada, 'POST', '/v1/orgs', { title: 'Elsewhere Inc' }), 201).body.id;
    ok(await call(people.ada, 'POST', `/v1/spaces/${moving}/transfer`, { organization: elsewhere }));
    ok(
      await call(people.ada, 'POST', `/v1/spaces/${moving}/content`, {
        changes: [page('After transfer', 'Written in the new organization.')],
      }),
    );
    // The sites let go of the space in a reaction to the transfer: wait (bounded) until it shows.
    for (let attempt = 0; attempt < 50 && (await siteSpaceTitles(rootShelf)).length !== 1; attempt += 1)
      await new Promise((resolve) => setTimeout(resolve, 100));
  });

  it("leave the old organization's site spaces, the default moving on", async () => {
    expect(await siteSpaceTitles(rootShelf)).toEqual([['Kept', true]]);
    expect(ok(await call(people.ada, 'GET', `${sites()}?space=${moving}`)).body.items).toEqual([]);
  });

  it("leave the old organization's sections: a section left without site spaces goes, the default section moving on", async () => {
    const sections = ok(await call(people.ada, 'GET', `${sites()}/${sectioned}/sections`)).body.items;
    expect(
      sections.map((section: { title: string; default: boolean; siteSpaces: unknown[] }) => [
        section.title,
        section.default,
        section.siteSpaces.length,
      ]),
    ).toEqual([['Kept section', true, 1]]);
    const structure = ok(await call(null, 'GET', `${sites()}/${sectioned}/published`)).body.structure.structure;
    expect(structure.map((section: { title: string }) => section.title)).toEqual(['Kept section']);
  });

  it("are no longer served by the old organization's published sites, neither what was written before the transfer nor after", async () => {
    for (const path of [
      `/sites/${rootShelf}/moving/before-transfer`,
      `/sites/${rootShelf}/moving/after-transfer`,
      `/sites/${sectioned}/moving-section/after-transfer`,
    ]) {
      expect({ path, status: (await html(path)).status }).toEqual({ path, status: 404 });
    }
    for (const siteId of [rootShelf, sectioned]) {
      const home = await html(`/sites/${siteId}`);
      expect(home.status).toBe(200);
      expect(home.text).toContain('Kept page');
      expect(home.text).not.toContain('After transfer');
      expect(home.text).not.toContain('Written in the new organization');
    }
  });
});

describe("the platform's shapes", () => {
  const page = (title: string, markdown: string) => ({ operation: 'insert_page', title, document: { markdown } });
  const html = (path: string) => service.request('GET', path);
  const pathOf = (address: string) => new URL(address).pathname;
  /** A space with one page, for sites whose published pages are read. */
  async function spaceWithPage(title: string, pageTitle: string): Promise<{ spaceId: string; pageId: string; pagePath: string }> {
    const spaceId = await space(title);
    const written = ok(
      await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, { changes: [page(pageTitle, `${pageTitle} text.`)] }),
    ).body;
    return { spaceId, pageId: written.changes[0].page.id, pagePath: written.changes[0].page.path };
  }
  const siteOf = async (title: string, spaces: string[] = [], extra: Record<string, unknown> = {}) =>
    ok(await call(people.ada, 'POST', sites(), { title, spaces, ...extra }), 201).body;
  const publish = async (siteId: string) => ok(await call(people.ada, 'POST', `${sites()}/${siteId}/publish`));

  describe('sites', () => {
    it("shows a proxy's own address as its origin, and the site's published address here as its target", async () => {
      const site = await siteOf('Proxied');
      const changed = ok(await call(people.ada, 'PATCH', `${sites()}/${site.id}`, { proxy: 'company.com/docs' })).body;
      expect(changed.proxy).toEqual({ origin: 'company.com/docs', target: expect.stringMatching(new RegExp(`/sites/${site.id}$`)) });
    });

    it('creates a site of every platform type, premium included, and shows it as the applied type too', async () => {
      const site = await siteOf('Premium docs', [], { type: 'premium' });
      expect(site).toMatchObject({ type: 'premium', appliedType: 'premium' });
    });

    it('lists the sites of the types asked for (?type=, repeated for several)', async () => {
      const premium = (await siteOf('Typed premium', [], { type: 'premium' })).id;
      const sponsored = (await siteOf('Typed sponsored', [], { type: 'sponsored' })).id;
      const basic = (await siteOf('Typed basic')).id;
      const ids = async (query: string) =>
        ok(await call(people.rita, 'GET', `${sites()}?limit=1000&${query}`)).body.items.map((item: { id: string }) => item.id);
      expect(await ids('type=premium')).toEqual(expect.arrayContaining([premium]));
      expect(await ids('type=premium')).not.toContain(basic);
      const several = await ids('type=premium&type=sponsored');
      expect([several.includes(premium), several.includes(sponsored), several.includes(basic)]).toEqual([true, true, false]);
      expectError(await call(people.rita, 'GET', `${sites()}?type=gold`), 400, /type must be one of/);
    });

    it('keeps defaultLevel: inherit until it is set, and shows what is set', async () => {
      const site = await siteOf('Levels');
      expect(site.defaultLevel).toBe('inherit');
      expect(ok(await call(people.ada, 'PATCH', `${sites()}/${site.id}`, { defaultLevel: 'review' })).body.defaultLevel).toBe('review');
      expect(ok(await call(people.ada, 'PATCH', `${sites()}/${site.id}`, { defaultLevel: 'inherit' })).body.defaultLevel).toBe('inherit');
      expectError(await call(people.ada, 'PATCH', `${sites()}/${site.id}`, { defaultLevel: 'owner' }), 400, /defaultLevel/);
    });

    it('lets a member whose role the site’s default level raises to admin change the site, and not once it inherits again', async () => {
      const site = await siteOf('Raised');
      expectError(await call(people.rita, 'PATCH', `${sites()}/${site.id}`, { title: 'By rita' }), 403);
      ok(await call(people.ada, 'PATCH', `${sites()}/${site.id}`, { defaultLevel: 'admin' }));
      expect(ok(await call(people.rita, 'GET', `${sites()}/${site.id}`)).body.permissions).toMatchObject({
        admin: true,
        installIntegration: false,
      });
      expect(ok(await call(people.rita, 'PATCH', `${sites()}/${site.id}`, { title: 'By rita' })).body.title).toBe('By rita');
      ok(await call(people.ada, 'PATCH', `${sites()}/${site.id}`, { defaultLevel: 'inherit' }));
      expectError(await call(people.rita, 'PATCH', `${sites()}/${site.id}`, { title: 'Again' }), 403);
    });

    it("computes a site's permissions from the caller's role: everything for an admin, viewing for a reader", async () => {
      const site = await siteOf('Permitted');
      expect(ok(await call(people.ada, 'GET', `${sites()}/${site.id}`)).body.permissions).toEqual({
        view: true,
        access: true,
        edit: true,
        create: true,
        admin: true,
        installIntegration: true,
        viewAdaptiveSchema: true,
        editAdaptiveSchema: true,
      });
      expect(ok(await call(people.rita, 'GET', `${sites()}/${site.id}`)).body.permissions).toEqual({
        view: true,
        access: true,
        edit: false,
        create: false,
        admin: false,
        installIntegration: false,
        viewAdaptiveSchema: true,
        editAdaptiveSchema: false,
      });
    });

    it('shows no features (the service has no plans) and a preview address that answers members with the site as it stands', async () => {
      const site = await siteOf('Previewed', [await space('Preview me')]);
      expect(site.features).toEqual([]);
      const preview = ok(await call(people.rita, 'GET', pathOf(site.urls.preview))).body;
      expect(preview).toMatchObject({ object: 'site-structure', type: 'siteSpaces', structure: [{ title: 'Preview me' }] });
    });

    it('shows urls.published only while the site is published', async () => {
      const site = await siteOf('Published or not');
      expect(site.urls.published).toBeUndefined();
      const published = ok(await call(people.ada, 'POST', `${sites()}/${site.id}/publish`)).body;
      expect(published.urls.published).toMatch(new RegExp(`/sites/${site.id}$`));
    });

    it('answers every Site in the platform’s shape', async () => {
      const site = await siteOf('Shaped', [await space('Shaped space')]);
      expect(platformSchemaProblem('Site', ok(await call(people.rita, 'GET', `${sites()}/${site.id}`)).body)).toBeNull();
    });

    it('attaches a space of the organization as the style guide, detaches it with null, and refuses a space it does not have (404)', async () => {
      const site = await siteOf('Styled');
      const guide = await space('Style guide');
      expect(ok(await call(people.ada, 'PATCH', `${sites()}/${site.id}`, { styleguide: guide })).body.styleguide).toEqual({
        kind: 'space',
        space: guide,
      });
      expect(ok(await call(people.ada, 'PATCH', `${sites()}/${site.id}`, { styleguide: null })).body.styleguide).toBeUndefined();
      expectError(
        await call(people.ada, 'PATCH', `${sites()}/${site.id}`, { styleguide: 'NoSuchSpace000000000' }),
        404,
        /NoSuchSpace000000000/,
      );
    });

    it('answers 404 for a space id on creation that names no space, whatever its shape', async () => {
      expectError(await call(people.ada, 'POST', sites(), { title: 'Unknown space', spaces: ['string'] }), 404, /no space string/);
    });
  });

  describe('the first section of a site that publishes spaces at its root', () => {
    it('keeps what the site published: the root’s site spaces become the first section’s, served at the same addresses', async () => {
      const spaces = [
        await spaceWithPage('Guide', 'Welcome'),
        await spaceWithPage('Recipes', 'Soup'),
        await spaceWithPage('Changelog', 'Release'),
      ];
      const site = await siteOf(
        'Kept docs',
        spaces.map((entry) => entry.spaceId),
      );
      await publish(site.id);
      const addresses = [
        `/sites/${site.id}/${spaces[0].pagePath}`,
        `/sites/${site.id}/recipes/${spaces[1].pagePath}`,
        `/sites/${site.id}/changelog/${spaces[2].pagePath}`,
      ];
      const served = async () => Promise.all(addresses.map(async (address) => (await html(address)).status));
      const publishedTitles = (body: {
        structure: { type: string; structure: Array<{ title: string; siteSpaces?: Array<{ title: string }> }> };
      }) =>
        body.structure.type === 'siteSpaces'
          ? body.structure.structure.map((item) => item.title)
          : body.structure.structure.flatMap((section) => section.siteSpaces!.map((item) => item.title));
      expect(publishedTitles(ok(await call(null, 'GET', `${sites()}/${site.id}/published`)).body)).toEqual([
        'Guide',
        'Recipes',
        'Changelog',
      ]);
      expect(await served()).toEqual([200, 200, 200]);

      ok(await call(people.ada, 'POST', `${sites()}/${site.id}/sections`, { spaceId: await space('Reference'), title: 'Reference' }), 201);

      const published = ok(await call(null, 'GET', `${sites()}/${site.id}/published`)).body;
      expect(published.structure.type).toBe('sections');
      expect(
        published.structure.structure[0].siteSpaces.map((item: { title: string; default: boolean }) => [item.title, item.default]),
      ).toEqual([
        ['Guide', true],
        ['Recipes', false],
        ['Changelog', false],
      ]);
      expect(await served()).toEqual([200, 200, 200]);
    });

    it('names the first section after the site and keeps it the default, the added section after it', async () => {
      const site = await siteOf('Handbook', [await space('Chapter one')]);
      const added = ok(
        await call(people.ada, 'POST', `${sites()}/${site.id}/sections`, { spaceId: await space('Appendix'), title: 'Appendix' }),
        201,
      ).body;
      expect(added).toMatchObject({ title: 'Appendix', default: false, siteSpaces: [{ title: 'Appendix', default: true }] });
      const sections = ok(await call(people.rita, 'GET', `${sites()}/${site.id}/sections`)).body.items;
      expect(
        sections.map((section: { title: string; default: boolean; siteSpaces: unknown[] }) => [
          section.title,
          section.default,
          section.siteSpaces.length,
        ]),
      ).toEqual([
        ['Handbook', true, 1],
        ['Appendix', false, 1],
      ]);
    });
  });

  describe('sections', () => {
    it('answers 201 with the new section', async () => {
      const site = await siteOf('Created sections');
      const response = await call(people.ada, 'POST', `${sites()}/${site.id}/sections`, { spaceId: await space('Created') });
      expect({ status: response.status, object: response.body.object }).toEqual({ status: 201, object: 'site-section' });
    });

    it('takes title null as no title (the space’s) and icon null as no icon', async () => {
      const site = await siteOf('Null members');
      const section = ok(
        await call(people.ada, 'POST', `${sites()}/${site.id}/sections`, {
          spaceId: await space('Named by space'),
          title: null,
          icon: null,
        }),
        201,
      ).body;
      expect(section.title).toBe('Named by space');
      expect(section.icon).toBeUndefined();
    });

    it('creates a new space for a section whose spaceId is null, named after the section', async () => {
      const site = await siteOf('New spaces');
      const section = ok(
        await call(people.ada, 'POST', `${sites()}/${site.id}/sections`, { spaceId: null, title: 'Fresh section' }),
        201,
      ).body;
      expect(section.siteSpaces[0].space).toMatchObject({ object: 'space', title: 'Fresh section' });
    });

    it('refuses pageId with spaceId null (400), and a page the space does not have (404)', async () => {
      const site = await siteOf('Pages asked');
      expectError(
        await call(people.ada, 'POST', `${sites()}/${site.id}/sections`, { spaceId: null, pageId: 'NoSuchPage0000000000' }),
        400,
        /pageId/,
      );
      expectError(
        await call(people.ada, 'POST', `${sites()}/${site.id}/sections`, {
          spaceId: await space('No such page'),
          pageId: 'NoSuchPage0000000000',
        }),
        404,
        /no page NoSuchPage0000000000/,
      );
    });

    it('tells a member who may not change the site nothing of a space’s pages: 403 whether the page exists or not', async () => {
      const site = await siteOf('Probed');
      const probed = await spaceWithPage('Probed space', 'Secret plan');
      for (const pageId of [probed.pageId, 'NoSuchPage0000000000']) {
        expectError(await call(people.rita, 'POST', `${sites()}/${site.id}/sections`, { spaceId: probed.spaceId, pageId }), 403);
      }
    });

    it('answers 404, never a prototype member, for prototype-named ids in a body (group, parent, page, style guide, spaces)', async () => {
      const site = await siteOf('Prototype names');
      const section = ok(
        await call(people.ada, 'POST', `${sites()}/${site.id}/sections`, { spaceId: await space('Prototype space') }),
        201,
      ).body;
      const group = ok(await call(people.ada, 'POST', `${sites()}/${site.id}/section-groups`, { title: 'Group' }), 201).body;
      expectError(
        await call(people.ada, 'PATCH', `${sites()}/${site.id}/sections/${section.id}`, { siteSectionGroupId: '__proto__' }),
        404,
      );
      expectError(
        await call(people.ada, 'PATCH', `${sites()}/${site.id}/section-groups/${group.id}`, { parentSectionGroupId: 'constructor' }),
        404,
      );
      expectError(
        await call(people.ada, 'PATCH', `${sites()}/${site.id}/site-spaces/${section.siteSpaces[0].id}`, { pageId: '__proto__' }),
        404,
      );
      expectError(await call(people.ada, 'PATCH', `${sites()}/${site.id}`, { styleguide: 'toString' }), 404);
      expectError(await call(people.ada, 'POST', sites(), { title: 'Prototype spaces', spaces: ['__proto__'] }), 404);
    });

    it('moves a section without a position to the end of the site', async () => {
      const site = await siteOf('Moved to the end');
      const first = ok(await call(people.ada, 'POST', `${sites()}/${site.id}/sections`, { spaceId: await space('First') }), 201).body.id;
      const second = ok(await call(people.ada, 'POST', `${sites()}/${site.id}/sections`, { spaceId: await space('Second') }), 201).body.id;
      ok(await call(people.ada, 'POST', `${sites()}/${site.id}/sections/${first}/move`, {}));
      expect(
        ok(await call(people.rita, 'GET', `${sites()}/${site.id}/sections`)).body.items.map((section: { id: string }) => section.id),
      ).toEqual([second, first]);
    });

    it('creates a section in a group (siteSectionGroupId) and takes it out again with null', async () => {
      const site = await siteOf('Grouped on creation');
      const group = ok(await call(people.ada, 'POST', `${sites()}/${site.id}/section-groups`, { title: 'Group' }), 201).body;
      const section = ok(
        await call(people.ada, 'POST', `${sites()}/${site.id}/sections`, {
          spaceId: await space('In group'),
          siteSectionGroupId: group.id,
        }),
        201,
      ).body;
      expect(section.sectionGroup).toBe(group.id);
      expect(
        ok(await call(people.ada, 'PATCH', `${sites()}/${site.id}/sections/${section.id}`, { siteSectionGroupId: null })).body.sectionGroup,
      ).toBeUndefined();
    });
  });

  describe('section groups', () => {
    async function groupedSite(title: string) {
      const site = await siteOf(title);
      const add = async (name: string) =>
        ok(await call(people.ada, 'POST', `${sites()}/${site.id}/sections`, { spaceId: await space(name), title: name }), 201).body
          .id as string;
      const [a, b, c] = [await add('A'), await add('B'), await add('C')];
      const first = ok(await call(people.ada, 'POST', `${sites()}/${site.id}/section-groups`, { title: 'First', sections: [a] }), 201).body
        .id as string;
      const second = ok(await call(people.ada, 'POST', `${sites()}/${site.id}/section-groups`, { title: 'Second', sections: [b, c] }), 201)
        .body.id as string;
      const order = async () =>
        ok(await call(people.rita, 'GET', `${sites()}/${site.id}/sections`)).body.items.map((section: { title: string }) => section.title);
      return { siteId: site.id as string, first, second, order };
    }

    it('moves a group without a position to the end of the site', async () => {
      const { siteId, first, order } = await groupedSite('Group to the end');
      ok(await call(people.ada, 'POST', `${sites()}/${siteId}/section-groups/${first}/move`, {}));
      expect(await order()).toEqual(['B', 'C', 'A']);
    });

    it('moves a group before another group named by a site-section-group pointer', async () => {
      const { siteId, first, second, order } = await groupedSite('Group before group');
      ok(
        await call(people.ada, 'POST', `${sites()}/${siteId}/section-groups/${second}/move`, {
          position: { before: { type: 'site-section-group', id: first } },
        }),
      );
      expect(await order()).toEqual(['B', 'C', 'A']);
    });

    it('lists a group’s sections as its children', async () => {
      const { siteId, second } = await groupedSite('Children');
      const group = ok(await call(people.rita, 'GET', `${sites()}/${siteId}/section-groups`)).body.items.find(
        (item: { id: string }) => item.id === second,
      );
      expect(group.children.map((child: { object: string; title: string }) => [child.object, child.title])).toEqual([
        ['site-section', 'B'],
        ['site-section', 'C'],
      ]);
    });

    it('refuses to nest a group in another (400), and names a parent the site does not have (404)', async () => {
      const { siteId, first, second } = await groupedSite('Nesting');
      expectError(await call(people.ada, 'POST', `${sites()}/${siteId}/section-groups`, { title: 'Inner', parent: first }), 400, /nested/);
      expectError(
        await call(people.ada, 'PATCH', `${sites()}/${siteId}/section-groups/${second}`, { parentSectionGroupId: 'NoSuchGroup000000000' }),
        404,
        /NoSuchGroup000000000/,
      );
      ok(await call(people.ada, 'PATCH', `${sites()}/${siteId}/section-groups/${second}`, { parentSectionGroupId: null }));
    });
  });

  describe('site spaces', () => {
    it('moves a site space without a position to the end of its section', async () => {
      const site = await siteOf('Site space to the end', [await space('One'), await space('Two')]);
      const [one, two] = ok(await call(people.rita, 'GET', `${sites()}/${site.id}/site-spaces`)).body.items;
      ok(await call(people.ada, 'POST', `${sites()}/${site.id}/site-spaces/${one.id}/move`, {}));
      expect(
        ok(await call(people.rita, 'GET', `${sites()}/${site.id}/site-spaces`)).body.items.map((item: { id: string }) => item.id),
      ).toEqual([two.id, one.id]);
    });

    it('answers every site space with its Space and its urls, in the platform’s shape', async () => {
      const site = await siteOf('Embedded spaces', [await space('Embedded')]);
      const [item] = ok(await call(people.rita, 'GET', `${sites()}/${site.id}/site-spaces`)).body.items;
      expect(item).toMatchObject({ space: { object: 'space', title: 'Embedded' }, draft: false, urls: {} });
      expect(platformSchemaProblem('SiteSpace', item)).toBeNull();
    });

    it('gives a site space its published address once the site is published', async () => {
      const site = await siteOf('Addressed', [await space('Home'), await space('Second home')]);
      await publish(site.id);
      const items = ok(await call(people.rita, 'GET', `${sites()}/${site.id}/site-spaces`)).body.items;
      expect(items.map((item: { urls: { published: string } }) => pathOf(item.urls.published))).toEqual([
        `/sites/${site.id}`,
        `/sites/${site.id}/second-home`,
      ]);
    });

    it('adds a site space for a new space (spaceId null) named after its title', async () => {
      const site = await siteOf('New variant');
      const item = ok(await call(people.ada, 'POST', `${sites()}/${site.id}/site-spaces`, { spaceId: null, title: 'Version 2' }), 201).body;
      expect(item).toMatchObject({ title: 'Version 2', path: 'version-2', space: { title: 'Version 2' } });
    });

    it('keeps a hidden site space out of the site’s navigation and still serves it', async () => {
      const open = await spaceWithPage('Shown', 'Shown page');
      const hidden = await spaceWithPage('Tucked away', 'Hidden page');
      const site = await siteOf('Hiding', [open.spaceId, hidden.spaceId]);
      const [, tucked] = ok(await call(people.rita, 'GET', `${sites()}/${site.id}/site-spaces`)).body.items;
      expect(ok(await call(people.ada, 'PATCH', `${sites()}/${site.id}/site-spaces/${tucked.id}`, { hidden: true })).body.hidden).toBe(
        true,
      );
      await publish(site.id);
      expect((await html(`/sites/${site.id}`)).text).not.toContain('Tucked away');
      expect((await html(`/sites/${site.id}/tucked-away/${hidden.pagePath}`)).status).toBe(200);
    });

    it('serves a site space’s custom home page at its root', async () => {
      const guide = await space('Home pages');
      const written = ok(
        await call(people.ada, 'POST', `/v1/spaces/${guide}/content`, {
          changes: [page('First page', 'First.'), page('Landing', 'Land here.')],
        }),
      ).body;
      const landing = written.changes[1].page.id;
      const site = await siteOf('Landing site', [guide]);
      const [item] = ok(await call(people.rita, 'GET', `${sites()}/${site.id}/site-spaces`)).body.items;
      expect(ok(await call(people.ada, 'PATCH', `${sites()}/${site.id}/site-spaces/${item.id}`, { pageId: landing })).body.pageId).toBe(
        landing,
      );
      await publish(site.id);
      expect((await html(`/sites/${site.id}`)).text).toContain('<h1>Landing</h1>');
    });
  });

  describe('drafts', () => {
    it('leaves a draft site space out of the published site until it is made live, showing draft to members', async () => {
      const live = await spaceWithPage('Live one', 'Live page');
      const drafted = await spaceWithPage('Drafted', 'Draft page');
      const site = await siteOf('Drafts', [live.spaceId]);
      const item = ok(
        await call(people.ada, 'POST', `${sites()}/${site.id}/site-spaces`, { spaceId: drafted.spaceId, draft: true }),
        201,
      ).body;
      expect(item.draft).toBe(true);
      await publish(site.id);
      const titles = async () =>
        ok(await call(null, 'GET', `${sites()}/${site.id}/published`)).body.structure.structure.map(
          (entry: { title: string }) => entry.title,
        );
      expect(await titles()).toEqual(['Live one']);
      expect((await html(`/sites/${site.id}/drafted/${drafted.pagePath}`)).status).toBe(404);
      ok(await call(people.ada, 'PATCH', `${sites()}/${site.id}/site-spaces/${item.id}`, { draft: false }));
      expect(await titles()).toEqual(['Live one', 'Drafted']);
    });

    it('leaves a draft section out of the published site', async () => {
      const site = await siteOf('Draft sections');
      ok(await call(people.ada, 'POST', `${sites()}/${site.id}/sections`, { spaceId: await space('Out'), title: 'Out now' }), 201);
      const drafted = ok(
        await call(people.ada, 'POST', `${sites()}/${site.id}/sections`, {
          spaceId: await space('Later'),
          title: 'Coming later',
          draft: true,
        }),
        201,
      ).body;
      expect(drafted).toMatchObject({ draft: true, urls: {} });
      await publish(site.id);
      expect(
        ok(await call(null, 'GET', `${sites()}/${site.id}/published`)).body.structure.structure.map(
          (section: { title: string }) => section.title,
        ),
      ).toEqual(['Out now']);
    });

    it("leaves a draft group's sections out of the published site", async () => {
      const site = await siteOf('Draft groups');
      ok(await call(people.ada, 'POST', `${sites()}/${site.id}/sections`, { spaceId: await space('Visible'), title: 'Visible' }), 201);
      const grouped = ok(
        await call(people.ada, 'POST', `${sites()}/${site.id}/sections`, { spaceId: await space('Grouped'), title: 'Grouped' }),
        201,
      ).body;
      const group = ok(
        await call(people.ada, 'POST', `${sites()}/${site.id}/section-groups`, { title: 'Soon', sections: [grouped.id], draft: true }),
        201,
      ).body;
      expect(group.draft).toBe(true);
      await publish(site.id);
      expect(
        ok(await call(null, 'GET', `${sites()}/${site.id}/published`)).body.structure.structure.map(
          (section: { title: string }) => section.title,
        ),
      ).toEqual(['Visible']);
    });
  });

  describe('the published site', () => {
    it('embeds each site space’s Space for an anonymous reader, with no permissions on it', async () => {
      const site = await siteOf('Anonymous spaces', [await space('Read anonymously')]);
      await publish(site.id);
      const [item] = ok(await call(null, 'GET', `${sites()}/${site.id}/published`)).body.structure.structure;
      expect(item.space).toMatchObject({ object: 'space', title: 'Read anonymously', permissions: { edit: false, admin: false } });
    });

    it('answers in the platform’s shape, with the customization it is rendered with and no scripts', async () => {
      const site = await siteOf('Customized', [await space('Looks')]);
      await publish(site.id);
      const published = ok(await call(null, 'GET', `${sites()}/${site.id}/published`)).body;
      expect(platformSchemaProblem('PublishedContentSite', published)).toBeNull();
      expect(published.scripts).toEqual([]);
      const stylesheet = (await html(`/sites/${site.id}/~site.css`)).text;
      expect(stylesheet).toContain(`a { color: ${published.customizations.site.styling.primaryColor.light}; }`);
    });
  });
});
