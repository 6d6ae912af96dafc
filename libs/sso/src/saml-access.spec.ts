import { decideSamlAccess, samlSubjectKey, type SamlAccessFacts } from './saml-access';
import { EMAIL_NAME_ID_FORMAT } from './saml-response';

const nobody: SamlAccessFacts = {
  boundUserId: null,
  emailUserId: null,
  emailInVerifiedDomain: false,
  consentingMembers: new Set(),
  usersInVerifiedDomains: new Set(),
};
const facts = (overrides: Partial<SamlAccessFacts>): SamlAccessFacts => ({ ...nobody, ...overrides });

describe('whom a SAML provider may sign in', () => {
  it("refuses an existing account that is not a consenting member, outside the organization's verified domains (account takeover)", () => {
    expect(decideSamlAccess(facts({ emailUserId: 'victim' }))).toEqual({ allowed: false, reason: 'identity-not-allowed' });
  });

  it('refuses to create an account for an address outside the verified domains', () => {
    expect(decideSamlAccess(nobody)).toEqual({ allowed: false, reason: 'identity-not-allowed' });
  });

  it('gives the same reason whether or not an account has the address (no account discovery)', () => {
    expect(decideSamlAccess(facts({ emailUserId: 'victim' }))).toEqual(decideSamlAccess(nobody));
  });

  it('signs in a member who consented to single sign-on, and binds the NameID to them', () => {
    expect(decideSamlAccess(facts({ emailUserId: 'u1', consentingMembers: new Set(['u1']) }))).toEqual({
      allowed: true,
      userId: 'u1',
      basis: 'consenting-member',
      bind: true,
    });
  });

  it('signs in an existing account whose address is in a verified domain, and binds the NameID', () => {
    expect(decideSamlAccess(facts({ emailUserId: 'u1', emailInVerifiedDomain: true, usersInVerifiedDomains: new Set(['u1']) }))).toEqual({
      allowed: true,
      userId: 'u1',
      basis: 'verified-domain',
      bind: true,
    });
  });

  it('creates an account only for an address in a verified domain, and binds the NameID', () => {
    expect(decideSamlAccess(facts({ emailInVerifiedDomain: true }))).toEqual({
      allowed: true,
      userId: null,
      basis: 'verified-domain',
      bind: true,
    });
  });

  it('signs a bound NameID in as its user, whatever address the assertion names now', () => {
    const decision = decideSamlAccess(facts({ boundUserId: 'u1', emailUserId: 'u2', consentingMembers: new Set(['u1', 'u2']) }));
    expect(decision).toEqual({ allowed: true, userId: 'u1', basis: 'consenting-member', bind: false });
  });

  it('signs a bound NameID in while its user has an address in a verified domain, even outside the organization', () => {
    expect(decideSamlAccess(facts({ boundUserId: 'u1', usersInVerifiedDomains: new Set(['u1']) }))).toEqual({
      allowed: true,
      userId: 'u1',
      basis: 'verified-domain',
      bind: false,
    });
  });

  it('refuses a bound NameID whose user left the organization and has no address in a verified domain', () => {
    expect(decideSamlAccess(facts({ boundUserId: 'u1', emailInVerifiedDomain: true }))).toEqual({
      allowed: false,
      reason: 'binding-no-longer-allowed',
    });
  });

  it('compares e-mail NameIDs without case, other NameIDs exactly', () => {
    expect(samlSubjectKey('Ada@Acme.io', EMAIL_NAME_ID_FORMAT)).toBe('ada@acme.io');
    expect(samlSubjectKey('AbC-123', 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent')).toBe('AbC-123');
  });
});
