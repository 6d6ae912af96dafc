import { grantedScopes, holdsScope, normalizedScopes, pendingScopes } from './integration.scopes';

describe('integration scopes in an installation', () => {
  it('records a set of scopes each once, sorted', () => {
    expect(normalizedScopes(['site:views:read', 'openapi:read', 'site:views:read'])).toEqual(['openapi:read', 'site:views:read']);
  });

  it('grants, of those the integration asks for, only those accepted: asking for more later grants nothing', () => {
    expect(grantedScopes([], ['site:views:read'])).toEqual([]);
    expect(holdsScope([], ['site:views:read'], 'site:views:read')).toBe(false);
    expect(pendingScopes([], ['site:views:read'])).toEqual(['site:views:read']);
  });

  it('takes away at once a scope the integration no longer asks for, even if accepted', () => {
    expect(grantedScopes(['site:views:read'], [])).toEqual([]);
    expect(holdsScope(['site:views:read'], [], 'site:views:read')).toBe(false);
    expect(pendingScopes(['site:views:read'], [])).toEqual([]);
  });

  it('grants a scope asked for and accepted', () => {
    expect(holdsScope(['site:views:read'], ['site:views:read', 'openapi:read'], 'site:views:read')).toBe(true);
    expect(grantedScopes(['site:views:read'], ['site:views:read', 'openapi:read'])).toEqual(['site:views:read']);
    expect(pendingScopes(['site:views:read'], ['site:views:read', 'openapi:read'])).toEqual(['openapi:read']);
  });
});
