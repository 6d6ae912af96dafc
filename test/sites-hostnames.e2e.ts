/**
 * Custom hostnames of docs sites, as an attacker would try them, through HTTP against the embedded
 * service: a site may take only a hostname in a domain its organization verified (the
 * verified-domains flow, its TXT record answered by a local DNS responder), never an IP literal, and
 * on a custom hostname only the site that owns it is served. If-Match reveals nothing of another
 * organization's site, and a stale one is refused before a hostname is claimed.
 *
 * The people: vera administers the organization that owns victim.example; mallory administers another.
 */
import { request as httpRequest } from 'node:http';
import { FakeDns } from '#testing/fake-dns';
import { cleanUpServices, expectError, ok, startService, type RunningService } from './support/service';

interface Person {
  token: string;
}

let service: RunningService;
let dns: FakeDns;
const people: Record<'vera' | 'mallory', Person> = {} as never;
const organizations: Record<'vera' | 'mallory', string> = {} as never;
const call = (person: Person | null, method: string, path: string, body?: unknown) =>
  service.request(method, path, { token: person?.token, body });
const sites = (who: 'vera' | 'mallory') => `/v1/orgs/${organizations[who]}/sites`;

/** Verifies `domain` for the person's organization as its admin would: add it, publish the TXT record, verify. */
async function verifyDomain(who: 'vera' | 'mallory', domain: string): Promise<void> {
  const domains = `/v1/orgs/${organizations[who]}/verified-domains`;
  const added = ok(await call(people[who], 'POST', domains, { domain }), 201).body;
  dns.records.set(added.txtRecord.name, [added.txtRecord.value]);
  ok(await call(people[who], 'POST', `${domains}/${domain}/verify`));
}

/** A published site of the person's organization with one space holding one page; its id. */
async function publishedSite(who: 'vera' | 'mallory', title: string): Promise<string> {
  const spaceId = ok(await call(people[who], 'POST', `/v1/orgs/${organizations[who]}/spaces`, { title }), 201).body.id;
  ok(
    await call(people[who], 'POST', `/v1/spaces/${spaceId}/content`, {
      changes: [{ operation: 'insert_page', title: `${title} page`, document: { markdown: `Written by ${title}.` } }],
    }),
  );
  const site = ok(await call(people[who], 'POST', sites(who), { title, spaces: [spaceId] }), 201).body;
  ok(await call(people[who], 'POST', `${sites(who)}/${site.id}/publish`));
  return site.id;
}

/** A GET with the Host header given (fetch cannot set it). */
function get(path: string, host: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port: service.port, path, method: 'GET', headers: { host } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    request.on('error', reject);
    request.end();
  });
}

beforeAll(async () => {
  dns = await FakeDns.start();
  service = await startService({ env: { DNS_SERVERS: dns.server } });
  for (const name of ['vera', 'mallory'] as const) {
    people[name] = { token: (await service.createUser(`${name}@hostnames.example`, name)).token };
    organizations[name] = ok(await call(people[name], 'POST', '/v1/orgs', { title: `${name} Inc` }), 201).body.id;
  }
  await verifyDomain('vera', 'victim.example');
});

afterAll(async () => {
  await cleanUpServices();
  await dns?.close();
});

describe('taking a custom hostname', () => {
  it('refuses a hostname in a domain the organization has not verified (403), leaving it free for the organization that verified it', async () => {
    const squat = ok(await call(people.mallory, 'POST', sites('mallory'), { title: 'Squatter' }), 201).body;
    expectError(
      await call(people.mallory, 'PATCH', `${sites('mallory')}/${squat.id}`, { hostname: 'docs.victim.example' }),
      403,
      /hostname docs\.victim\.example .*verified/,
    );
    expect(ok(await call(people.mallory, 'GET', `${sites('mallory')}/${squat.id}`)).body.hostname).toBeUndefined();
    const owned = ok(await call(people.vera, 'POST', sites('vera'), { title: 'Owner' }), 201).body;
    expect(ok(await call(people.vera, 'PATCH', `${sites('vera')}/${owned.id}`, { hostname: 'docs.victim.example' })).body.hostname).toBe(
      'docs.victim.example',
    );
    ok(await call(people.vera, 'PATCH', `${sites('vera')}/${owned.id}`, { hostname: null }));
  });

  it('refuses a hostname in a domain the organization added but did not verify yet (403)', async () => {
    ok(await call(people.mallory, 'POST', `/v1/orgs/${organizations.mallory}/verified-domains`, { domain: 'pending.example' }), 201);
    const site = ok(await call(people.mallory, 'POST', sites('mallory'), { title: 'Pending' }), 201).body;
    expectError(
      await call(people.mallory, 'PATCH', `${sites('mallory')}/${site.id}`, { hostname: 'docs.pending.example' }),
      403,
      /verified/,
    );
  });

  it('accepts a hostname equal to a verified domain or under it, and refuses look-alikes (403)', async () => {
    await verifyDomain('vera', 'help.victim-two.example');
    const site = ok(await call(people.vera, 'POST', sites('vera'), { title: 'Helpful' }), 201).body;
    const patch = (hostname: string | null) => call(people.vera, 'PATCH', `${sites('vera')}/${site.id}`, { hostname });
    expect(ok(await patch('help.victim-two.example')).body.hostname).toBe('help.victim-two.example');
    expect(ok(await patch('eu.help.victim-two.example')).body.hostname).toBe('eu.help.victim-two.example');
    for (const lookalike of ['xhelp.victim-two.example', 'help.victim-two.example.evil.example', 'docs.victim-two.example']) {
      expectError(await patch(lookalike), 403, /verified/);
    }
    ok(await patch(null));
  });

  it('refuses IP literals, in any notation, as hostnames (400)', async () => {
    const site = ok(await call(people.vera, 'POST', sites('vera'), { title: 'Literal' }), 201).body;
    const literals = [
      '169.254.169.254',
      '127.0.0.1',
      '10.0.0.1',
      '0xa9.0xfe.0xa9.0xfe',
      '0251.0376.0251.0376',
      '169.254.43518',
      '0x7f.0.0.1',
      '2852039166',
      '[::1]',
      '::ffff:169.254.169.254',
      '[fd00::1]',
      'docs.victim.0x10',
      '1.2.3.4.5',
    ];
    for (const hostname of literals) {
      const response = await call(people.vera, 'PATCH', `${sites('vera')}/${site.id}`, { hostname });
      expectError(response, 400, /hostname must be a host name, not an IP address/);
    }
    expect(ok(await call(people.vera, 'GET', `${sites('vera')}/${site.id}`)).body.hostname).toBeUndefined();
  });

  it('refuses what is not a host name (400)', async () => {
    const site = ok(await call(people.vera, 'POST', sites('vera'), { title: 'Misshapen' }), 201).body;
    for (const hostname of [
      'docs..victim.example',
      'Docs.Victim.Example',
      'docs.victim.example.',
      '-docs.victim.example',
      'docs_x.victim.example',
      '__proto__',
      'docs.victim.example:8080',
      'ex\u0430mple.victim.example',
      42,
      '',
    ]) {
      expectError(await call(people.vera, 'PATCH', `${sites('vera')}/${site.id}`, { hostname }), 400, /hostname/);
    }
  });
});

describe('serving on a custom hostname', () => {
  let victimSite: string;
  let attackerSite: string;

  beforeAll(async () => {
    victimSite = await publishedSite('vera', 'Victim docs');
    ok(await call(people.vera, 'PATCH', `${sites('vera')}/${victimSite}`, { hostname: 'served.victim.example' }));
    attackerSite = await publishedSite('mallory', 'Attacker docs');
  });

  it("answers another site's path on the hostname with 404, in whatever case or with a trailing dot", async () => {
    for (const host of [
      'served.victim.example',
      'SERVED.Victim.Example',
      'served.victim.example.',
      `served.victim.example:${service.port}`,
    ]) {
      const response = await get(`/sites/${attackerSite}/`, host);
      expect({ host, status: response.status }).toEqual({ host, status: 404 });
      expect(response.text).not.toContain('Attacker docs');
      expect((await get(`/sites/${attackerSite}/attacker-docs-page`, host)).status).toBe(404);
    }
  });

  it('still serves the owning site on its hostname, at its root and under /sites/{siteId}', async () => {
    expect((await get('/', 'served.victim.example')).text).toContain('Written by Victim docs.');
    expect((await get(`/sites/${victimSite}/`, 'served.victim.example')).text).toContain('Written by Victim docs.');
  });

  it("still serves every site under /sites/{siteId} on the service's own host", async () => {
    const response = await get(`/sites/${attackerSite}/`, `127.0.0.1:${service.port}`);
    expect(response.status).toBe(200);
    expect(response.text).toContain('Written by Attacker docs.');
  });
});

describe('If-Match on a site, as an attacker would send it', () => {
  const siteUrl = (siteId: string) => `${sites('vera')}/${siteId}`;
  const withIfMatch = (person: Person, method: string, path: string, ifMatch: string, body?: unknown) =>
    service.request(method, path, { token: person.token, body, headers: { 'if-match': ifMatch } });

  it("answers another organization's admin 404 for a site of vera's whatever revision If-Match names: a 412 would reveal the site and its revision", async () => {
    const site = ok(await call(people.vera, 'POST', sites('vera'), { title: 'Revision kept' }), 201).body;
    const current = Number(JSON.parse(ok(await call(people.vera, 'GET', siteUrl(site.id))).headers.etag));
    for (let revision = 0; revision <= current + 1; revision += 1) {
      for (const [method, path, body] of [
        ['PATCH', `${sites('mallory')}/${site.id}`, { title: 'Taken' }],
        ['POST', `${sites('mallory')}/${site.id}/publish`, undefined],
        ['DELETE', `${sites('mallory')}/${site.id}/site-spaces/${site.id}`, undefined],
      ] as const) {
        const response = await withIfMatch(people.mallory, method, path, `"${revision}"`, body);
        expect({ method, path, revision, status: response.status }).toEqual({ method, path, revision, status: 404 });
        expectError(response, 404, /no site/);
      }
    }
    expect(ok(await call(people.vera, 'GET', siteUrl(site.id))).body.title).toBe('Revision kept');
  });

  it('refuses a hostname change naming a stale revision (412) before claiming the hostname: its stream stays empty and the site keeps none', async () => {
    const site = ok(await call(people.vera, 'POST', sites('vera'), { title: 'Stale writer' }), 201).body;
    const current = Number(JSON.parse(ok(await call(people.vera, 'GET', siteUrl(site.id))).headers.etag));
    expectError(
      await withIfMatch(people.vera, 'PATCH', siteUrl(site.id), `"${current + 1}"`, { hostname: 'stale.victim.example' }),
      412,
      /If-Match/,
    );
    expectError(await service.request('GET', '/v1/admin/streams/sitehostname-stale.victim.example', { token: service.adminToken }), 404);
    const after = ok(await call(people.vera, 'GET', siteUrl(site.id)));
    expect({ etag: after.headers.etag, hostname: after.body.hostname }).toEqual({ etag: `"${current}"`, hostname: undefined });
    // The current revision lets the same change through.
    expect(
      ok(await withIfMatch(people.vera, 'PATCH', siteUrl(site.id), `"${current}"`, { hostname: 'stale.victim.example' })).body.hostname,
    ).toBe('stale.victim.example');
  });
});
