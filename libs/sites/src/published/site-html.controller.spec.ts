import { parseCookies, withoutSecrets } from './site-html.queries';

describe('the address a share key or visitor token is taken out of', () => {
  it('keeps the path and the other parameters', () => {
    expect(withoutSecrets('/sites/s1/page?shareKey=k&q=npm&jwt_token=t')).toBe('/sites/s1/page?q=npm');
  });

  it('never becomes an address of another host', () => {
    expect(withoutSecrets('//evil.example/x?shareKey=k')).toBe('/evil.example/x');
    expect(withoutSecrets('/\\evil.example/x?shareKey=k')).toBe('/evil.example/x');
  });
});

describe('cookies', () => {
  it('are read by name, the first value of a name kept, values percent-decoded', () => {
    const cookies = parseCookies('a=1; site_share_key=k%3Dv; a=2; broken=%E0%A4%A');
    expect([cookies.get('a'), cookies.get('site_share_key'), cookies.get('broken')]).toEqual(['1', 'k=v', '%E0%A4%A']);
  });
});
