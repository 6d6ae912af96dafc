import { decideSamlAccess, type SamlAccessFacts } from './saml-access';

/** Whom a SAML provider may sign in: the rules the first spec leaves implicit. */
const nobody: SamlAccessFacts = {
  boundUserId: null,
  emailUserId: null,
  emailInVerifiedDomain: false,
  consentingMembers: new Set(),
  usersInVerifiedDomains: new Set(),
};

describe('whom a SAML provider may sign in: an existing account by the address of the assertion', () => {
  it('signs in the account with the assertion’s address when that address is in a verified domain, even if the account is neither a consenting member nor known by its own address', () => {
    expect(decideSamlAccess({ ...nobody, emailUserId: 'u1', emailInVerifiedDomain: true })).toEqual({
      allowed: true,
      userId: 'u1',
      basis: 'verified-domain',
      bind: true,
    });
  });
});
