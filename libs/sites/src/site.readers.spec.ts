import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { ManualClock } from '#platform/clock';
import type { AppConfig } from '#platform/config';
import type { ReadStore } from '#read-store/read-store.port';
import type { SiteDoc } from './site.projections';
import { SiteReaders, type ReaderAccess } from './site.readers';

/**
 * Who may read a published site, by visibility and by what the reader presents. A refused reader
 * gets 404. The visitor token rules are the ones that hold secrets: each names the check it pins.
 */
const config = { integrationSecretsKey: '11'.repeat(32), sitesAllowPrivateNetworks: true, dataDir: '/nonexistent' } as AppConfig;

function siteWith(overrides: Partial<SiteDoc>): SiteDoc {
  return {
    _id: 'site1',
    organizationId: 'o1',
    published: true,
    visibility: 'public',
    sections: [],
    siteSpaces: [],
    groups: [],
    ...overrides,
  } as unknown as SiteDoc;
}

/** Readers over a read store holding one site. */
function readersOf(site: SiteDoc): SiteReaders {
  const collection = {
    get: async (id: string) => (id === site._id ? site : null),
    find: async (filter: { hostname?: string }) => ({ items: filter.hostname === site.hostname ? [site] : [] }),
  };
  const reads = { collection: () => collection } as unknown as ReadStore;
  return new SiteReaders(reads, config, new ManualClock(new Date()));
}

async function status(
  readers: SiteReaders,
  access: ReaderAccess,
  ref: { siteId: string } | { hostname: string } = { siteId: 'site1' },
  organizationId?: string,
): Promise<number> {
  try {
    await readers.readable(ref, access, organizationId);
    return 200;
  } catch (error) {
    return (error as { status?: number }).status ?? 500;
  }
}

const hs256 = (key: string, claims: Record<string, unknown> = {}, exp: number | string | null = '1h') => {
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' });
  if (exp !== null) jwt.setExpirationTime(exp);
  return jwt.sign(new TextEncoder().encode(key));
};

describe('site readers', () => {
  describe('by visibility', () => {
    it.each(['public', 'unlisted'] as const)('given a published %s site, when anyone reads it, then it is shown', async (visibility) => {
      expect(await status(readersOf(siteWith({ visibility })), {})).toBe(200);
    });

    it('given an unpublished site, when anyone (even a member) reads it, then 404', async () => {
      expect(await status(readersOf(siteWith({ published: false })), { member: true })).toBe(404);
    });

    it('given a deleted site, when a member reads it, then 404', async () => {
      expect(await status(readersOf(siteWith({ deleted: true })), { member: true })).toBe(404);
    });

    it('given a site of another organization, when read within this one, then 404', async () => {
      expect(await status(readersOf(siteWith({})), {}, { siteId: 'site1' }, 'o2')).toBe(404);
      expect(await status(readersOf(siteWith({})), {}, { siteId: 'site1' }, 'o1')).toBe(200);
    });

    it('given a site with a hostname, when read by that hostname, then it is shown; another hostname, 404', async () => {
      const readers = readersOf(siteWith({ hostname: 'docs.example.com' }));
      expect(await status(readers, {}, { hostname: 'docs.example.com' })).toBe(200);
      expect(await status(readers, {}, { hostname: 'other.example.com' })).toBe(404);
    });

    it('given a share-link site, when read without a key, with a wrong key, or with an inactive link’s key, then 404', async () => {
      const readers = readersOf(
        siteWith({
          visibility: 'share-link',
          shareLinks: [
            { id: 'l1', key: 'k-active', active: true },
            { id: 'l2', key: 'k-revoked', active: false },
          ] as SiteDoc['shareLinks'],
        }),
      );
      expect(await status(readers, {})).toBe(404);
      expect(await status(readers, { shareKey: 'k-activ' })).toBe(404);
      expect(await status(readers, { shareKey: 'k-revoked' })).toBe(404);
      expect(await status(readers, { shareKey: 'k-active' })).toBe(200);
    });

    it('given a share-link or visitor-auth site, when a member of the organization reads it, then it is shown', async () => {
      expect(await status(readersOf(siteWith({ visibility: 'share-link' })), { member: true })).toBe(200);
      expect(await status(readersOf(siteWith({ visibility: 'visitor-auth' })), { member: true })).toBe(200);
    });

    it('given a share-link site, when a valid visitor token is presented, then 404 (a token opens visitor-auth sites only)', async () => {
      const site = siteWith({ visibility: 'share-link' });
      const readers = readersOf(site);
      expect(await status(readers, { visitorToken: await hs256(readers.visitorKey(site)) })).toBe(404);
    });
  });

  describe('visitor tokens signed with the site’s own key (HS256)', () => {
    const site = siteWith({ visibility: 'visitor-auth', visitorAuth: { jwksUrl: null, keyGeneration: 0 } });

    it('given a token with exp, when presented, then the site is shown with the token’s claims', async () => {
      const readers = readersOf(site);
      const view = await readers.readable({ siteId: 'site1' }, { visitorToken: await hs256(readers.visitorKey(site), { plan: 'pro' }) });
      expect(view.claims).toMatchObject({ plan: 'pro' });
    });

    // Mutation pinned: dropping `requiredClaims: ['exp']` on the HS256 path.
    it('given a token without exp, when presented, then 404', async () => {
      const readers = readersOf(site);
      expect(await status(readers, { visitorToken: await hs256(readers.visitorKey(site), {}, null) })).toBe(404);
    });

    it('given an expired token, or one signed with another generation of the key, then 404', async () => {
      const readers = readersOf(site);
      expect(await status(readers, { visitorToken: await hs256(readers.visitorKey(site), {}, Math.floor(Date.now() / 1000) - 60) })).toBe(
        404,
      );
      const rotated = siteWith({ ...site, visitorAuth: { jwksUrl: null, keyGeneration: 1 } });
      expect(await status(readersOf(rotated), { visitorToken: await hs256(readers.visitorKey(site)) })).toBe(404);
    });

    it('given an empty token, or one longer than 8192 characters, then 404', async () => {
      const readers = readersOf(site);
      expect(await status(readers, { visitorToken: '' })).toBe(404);
      const long = await hs256(readers.visitorKey(site), { pad: 'x'.repeat(8200) });
      expect(await status(readers, { visitorToken: long })).toBe(404);
      const justUnder = await hs256(readers.visitorKey(site), { pad: 'x'.repeat(5000) });
      expect(justUnder.length).toBeLessThanOrEqual(8192);
      expect(await status(readers, { visitorToken: justUnder })).toBe(200);
    });

    it('given a token whose algorithm is none of HS256 or RS256 (with a JWKS URL), then 404', async () => {
      const readers = readersOf(site);
      const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ exp: 9999999999 })).toString('base64url')}.`;
      expect(await status(readers, { visitorToken: unsigned })).toBe(404);
    });
  });

  describe('visitor tokens signed with a key of the site’s JWKS URL (RS256)', () => {
    let server: Server;
    let jwksUrl: string;
    let keys: { privateKey: CryptoKey; publicKey: CryptoKey };

    beforeAll(async () => {
      keys = await generateKeyPair('RS256');
      const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] });
      server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(jwks));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
    });

    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    const rs256 = (claims: Record<string, unknown>, exp: string | null = '1h') => {
      const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' });
      if (exp !== null) jwt.setExpirationTime(exp);
      return jwt.sign(keys.privateKey);
    };
    const jwksSite = (issuer?: string) =>
      siteWith({ visibility: 'visitor-auth', visitorAuth: { jwksUrl, keyGeneration: 0, ...(issuer ? { issuer } : {}) } });

    it('given a token for this site (aud) with exp, when presented, then the site is shown with its claims', async () => {
      const view = await readersOf(jwksSite()).readable(
        { siteId: 'site1' },
        { visitorToken: await rs256({ aud: 'site1', partner: true }) },
      );
      expect(view.claims).toMatchObject({ partner: true, aud: 'site1' });
    });

    // Mutation pinned: dropping `requiredClaims: ['exp']` on the RS256 path.
    it('given a token for this site without exp, when presented, then 404', async () => {
      expect(await status(readersOf(jwksSite()), { visitorToken: await rs256({ aud: 'site1' }, null) })).toBe(404);
    });

    // Mutation pinned: dropping `audience: site._id`.
    it('given a token for another site (aud), or naming none, then 404', async () => {
      expect(await status(readersOf(jwksSite()), { visitorToken: await rs256({ aud: 'site2' }) })).toBe(404);
      expect(await status(readersOf(jwksSite()), { visitorToken: await rs256({}) })).toBe(404);
    });

    it('given a site naming an issuer, when the token names another issuer or none, then 404; that issuer, shown', async () => {
      const readers = readersOf(jwksSite('https://login.example.com/'));
      expect(await status(readers, { visitorToken: await rs256({ aud: 'site1', iss: 'https://evil.example.com/' }) })).toBe(404);
      expect(await status(readers, { visitorToken: await rs256({ aud: 'site1' }) })).toBe(404);
      expect(await status(readers, { visitorToken: await rs256({ aud: 'site1', iss: 'https://login.example.com/' }) })).toBe(200);
    });

    it('given a site without a JWKS URL, when an RS256 token is presented, then 404', async () => {
      const site = siteWith({ visibility: 'visitor-auth', visitorAuth: { jwksUrl: null, keyGeneration: 0 } });
      expect(await status(readersOf(site), { visitorToken: await rs256({ aud: 'site1' }) })).toBe(404);
    });

    it('given a JWKS URL site, when an HS256 token signed with its own key is presented, then it is still shown', async () => {
      const site = jwksSite();
      const readers = readersOf(site);
      expect(await status(readers, { visitorToken: await hs256(readers.visitorKey(site)) })).toBe(200);
    });
  });

  describe('conditions', () => {
    it('given sections with conditions, when read with claims, then only the sections whose conditions hold are shown', async () => {
      const sections = [
        { id: 'all', condition: null },
        { id: 'pro', condition: 'visitor.claims.plan == "pro"' },
        { id: 'draft', condition: null, draft: true },
      ];
      const site = siteWith({
        visibility: 'visitor-auth',
        visitorAuth: { jwksUrl: null, keyGeneration: 0 },
        sections: sections as unknown as SiteDoc['sections'],
      });
      const readers = readersOf(site);
      const pro = await readers.readable({ siteId: 'site1' }, { visitorToken: await hs256(readers.visitorKey(site), { plan: 'pro' }) });
      expect(pro.site.sections.map((section) => section.id)).toEqual(['all', 'pro']);
      const nobody = await readersOf(siteWith({ sections: sections as unknown as SiteDoc['sections'] })).readable({ siteId: 'site1' }, {});
      expect(nobody.site.sections.map((section) => section.id)).toEqual(['all']);
    });
  });
});
