import type { CacheItem, CacheProvider } from '@node-saml/node-saml';
import { normalizeCertificate } from './certificate';
import type { SamlLoginSettings } from './saml-provider.decider';
import { samlClient, verifySamlResponse } from './saml-response';
import { samlServiceUrls } from './saml-service';
import { authnRequestOf, FakeIdp, generateKeyPair, signElement, type ResponseOptions } from '#testing/fake-idp';

/** node-saml's request store, in memory (the service keeps it in the event log: see saml-login.e2e.ts). */
class MemoryRequests implements CacheProvider {
  readonly requests = new Map<string, string>();
  async saveAsync(key: string, value: string): Promise<CacheItem> {
    this.requests.set(key, value);
    return { value, createdAt: Date.parse(value) };
  }
  async getAsync(key: string): Promise<string | null> {
    return this.requests.get(key) ?? null;
  }
  async removeAsync(key: string | null): Promise<string | null> {
    return key !== null && this.requests.delete(key) ? key : null;
  }
}

const idp = new FakeIdp('https://idp.example.test/metadata');
const service = samlServiceUrls('https://docs.example.test', 'p1');
const settings: SamlLoginSettings = {
  providerId: 'p1',
  organizationId: 'o1',
  entityID: idp.entityID,
  certificate: normalizeCertificate(idp.certificate)!,
  ssoURL: 'https://idp.example.test/sso?tenant=acme',
  defaultTeam: null,
  defaultRole: 'read',
};

let requests: MemoryRequests;
beforeEach(() => (requests = new MemoryRequests()));

const client = (overrides: Partial<SamlLoginSettings> = {}) => samlClient({ ...settings, ...overrides }, service, requests);

/** Starts a login as GET /start does: the AuthnRequest id the response must answer. */
async function startLogin(): Promise<string> {
  return authnRequestOf(await client().getAuthorizeUrlAsync('', undefined, {})).id;
}

async function respond(options: Partial<ResponseOptions> = {}, overrides: Partial<SamlLoginSettings> = {}, response?: string) {
  const inResponseTo = options.inResponseTo === undefined ? await startLogin() : options.inResponseTo;
  const samlResponse =
    response ?? idp.response({ audience: service.entityID, acsURL: service.acsURL, nameID: 'ada@acme.io', ...options, inResponseTo });
  return verifySamlResponse(client(overrides), { ...settings, ...overrides }, service, samlResponse);
}

/** Resolves to the 401 message, or fails when the response was accepted or failed otherwise. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toMatchObject({ status: 401 });
    return (error as Error).message;
  }
  throw new Error('the response was accepted');
}

const minutes = (n: number) => new Date(Date.now() + n * 60_000);

describe('AuthnRequest (GET /start)', () => {
  it('redirects to the ssoURL with a deflated AuthnRequest from our entity ID, asking for the response at our ACS', async () => {
    const url = await client().getAuthorizeUrlAsync('back-to=/docs', undefined, {});
    expect(url.startsWith('https://idp.example.test/sso?tenant=acme&SAMLRequest=')).toBe(true);
    const request = authnRequestOf(url);
    expect(request.relayState).toBe('back-to=/docs');
    expect(request.xml).toContain(`Destination="${settings.ssoURL.replace('&', '&amp;')}"`);
    expect(request.xml).toContain(`AssertionConsumerServiceURL="${service.acsURL}"`);
    expect(request.xml).toContain(`>${service.entityID}</saml:Issuer>`);
    expect(request.xml).toContain('urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress');
    expect(request.id).toMatch(/^_[0-9a-f]{40}$/);
    expect(requests.requests.has(request.id)).toBe(true);
  });
});

describe('SAML response verification', () => {
  it('accepts a response whose assertion is signed: who it names (NameID, e-mail) and the request it answers', async () => {
    const requestId = await startLogin();
    const verified = await respond({ inResponseTo: requestId, assertionId: '_assertion1', attributes: { displayName: 'Ada Lovelace' } });
    expect(verified).toEqual({
      assertionId: '_assertion1',
      requestId,
      issuer: idp.entityID,
      nameID: 'ada@acme.io',
      nameIDFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
      email: 'ada@acme.io',
      displayName: 'Ada Lovelace',
    });
  });

  it('accepts a signed Response around an unsigned assertion, and both signed', async () => {
    expect((await respond({ sign: 'response' })).email).toBe('ada@acme.io');
    expect((await respond({ sign: 'both' })).email).toBe('ada@acme.io');
  });

  it('takes the e-mail from an email attribute when the NameID is not an address', async () => {
    const verified = await respond({
      nameID: 'f81d4fae-7dec',
      nameIDFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
      attributes: { email: 'grace@acme.io', givenName: 'Grace', sn: 'Hopper' },
    });
    expect(verified).toMatchObject({ nameID: 'f81d4fae-7dec', email: 'grace@acme.io', displayName: 'Grace Hopper' });
  });

  it('refuses an unsigned response', async () => {
    expect(await refusal(respond({ sign: 'none' }))).toMatch(/^invalid SAML response: .*not signed by the provider's certificate/);
  });

  it('refuses a response changed after signing (assertion or response signature)', async () => {
    for (const sign of ['assertion', 'response'] as const) {
      const inResponseTo = await startLogin();
      const signed = idp.responseXml({ audience: service.entityID, acsURL: service.acsURL, nameID: 'ada@acme.io', inResponseTo, sign });
      const tampered = signed.replace('ada@acme.io', 'mallory@acme.io');
      expect(tampered).not.toBe(signed);
      expect(await refusal(respond({ inResponseTo }, {}, Buffer.from(tampered).toString('base64')))).toMatch(
        /not signed by the provider's certificate/,
      );
    }
  });

  it('refuses a response signed by another key, even one that carries its own certificate', async () => {
    expect(await refusal(respond({ signingKey: generateKeyPair('Mallory') }))).toMatch(/not signed by the provider's certificate/);
  });

  it('refuses an unsigned assertion wrapped next to a signed one (signature wrapping)', async () => {
    const inResponseTo = await startLogin();
    const genuine = signElement(
      idp
        .responseXml({ audience: service.entityID, acsURL: service.acsURL, nameID: 'ada@acme.io', inResponseTo, sign: 'none' })
        .replace(/^.*?(<saml:Assertion)/s, '$1')
        .replace(/<\/samlp:Response>$/, ''),
      'Assertion',
      idp.keys,
    );
    const forged = idp.responseXml({
      audience: service.entityID,
      acsURL: service.acsURL,
      nameID: 'mallory@acme.io',
      inResponseTo,
      sign: 'none',
    });
    const wrapped = forged.replace('</samlp:Response>', `${genuine}</samlp:Response>`);
    expect(await refusal(respond({ inResponseTo }, {}, Buffer.from(wrapped).toString('base64')))).toMatch(
      /not signed by the provider's certificate/,
    );
  });

  it('refuses an expired assertion and one not valid yet', async () => {
    expect(await refusal(respond({ issueInstant: minutes(-20), notBefore: minutes(-20), notOnOrAfter: minutes(-10) }))).toMatch(
      /the assertion has expired/,
    );
    expect(await refusal(respond({ notBefore: minutes(10), notOnOrAfter: minutes(20) }))).toMatch(/the assertion is not valid yet/);
    // Within the tolerated clock skew (a minute), a slightly early assertion passes.
    expect((await respond({ notBefore: new Date(Date.now() + 20_000) })).email).toBe('ada@acme.io');
  });

  it('refuses an assertion for another audience', async () => {
    expect(await refusal(respond({ audience: 'https://other.example.test/sp' }))).toMatch(
      /Audience must be https:\/\/docs\.example\.test\/v1\/sso\/saml\/p1/,
    );
  });

  it('refuses a response addressed elsewhere (Destination) or an assertion for another recipient', async () => {
    expect(await refusal(respond({ destination: 'https://other.example.test/acs' }))).toMatch(
      /addressed to https:\/\/other\.example\.test\/acs/,
    );
    expect(await refusal(respond({ recipient: 'https://other.example.test/acs' }))).toMatch(
      /recipient is https:\/\/other\.example\.test\/acs/,
    );
    expect((await respond({ destination: null })).email).toBe('ada@acme.io');
  });

  it('refuses unsolicited responses and answers to requests it did not issue or already had answered', async () => {
    expect(await refusal(respond({ inResponseTo: null }))).toMatch(
      /answers no login request of ours: start logins at https:\/\/docs\.example\.test\/v1\/sso\/saml\/p1\/start/,
    );
    expect(await refusal(respond({ inResponseTo: '_unknown' }))).toMatch(/unknown, expired or already answered/);
    const requestId = await startLogin();
    await respond({ inResponseTo: requestId });
    expect(await refusal(respond({ inResponseTo: requestId }))).toMatch(/unknown, expired or already answered/);
  });

  it('refuses an assertion from another issuer than the provider entityID; without an entityID, any issuer', async () => {
    expect(await refusal(respond({ issuer: 'https://evil.example.test' }))).toMatch(
      /issued by https:\/\/evil\.example\.test, not by the provider's entityID/,
    );
    expect((await respond({ issuer: 'https://elsewhere.example.test' }, { entityID: null })).issuer).toBe('https://elsewhere.example.test');
  });

  it('refuses an assertion without an e-mail address', async () => {
    expect(await refusal(respond({ nameID: 'ada', nameIDFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent' }))).toMatch(
      /names no e-mail address/,
    );
    expect(await refusal(respond({ nameID: 'not an address' }))).toMatch(/names no e-mail address/);
  });

  it('refuses garbage with a 401, never a crash', async () => {
    for (const garbage of [
      '',
      'bm90IHhtbA==',
      Buffer.from('<x/>').toString('base64'),
      Buffer.from('<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"/>').toString('base64'),
      '%%%',
    ]) {
      expect(await refusal(respond({ inResponseTo: '_x' }, {}, garbage))).toMatch(/^invalid SAML response: /);
    }
  });
});
