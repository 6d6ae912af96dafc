import { policyProblem, policyText } from './integration.content-security-policy';

describe("an integration's content security policy", () => {
  it('takes a policy as text, or as an object of directives', () => {
    expect(policyProblem("connect-src 'self' https://api.example.com")).toBeNull();
    expect(policyProblem({ 'connect-src': 'https://api.example.com', 'img-src': '*' })).toBeNull();
  });

  it('refuses what is not a directive, values that are not text, and values that would say more than their directive', () => {
    expect(policyProblem({ 'connect-sauce': '*' })).toMatch(/contentSecurityPolicy\.connect-sauce is not a directive/);
    expect(policyProblem({ 'connect-src': 5 })).toMatch(/contentSecurityPolicy\.connect-src must be a string/);
    expect(policyProblem({ 'connect-src': "https://a.example; script-src 'unsafe-inline'" })).toMatch(/may not contain/);
    expect(policyProblem({ 'connect-src': 'https://a.example, default-src *' })).toMatch(/may not contain/);
    expect(policyProblem(JSON.parse('{"__proto__": "*"}'))).toMatch(/__proto__ is not a directive/);
  });

  it('refuses text on more than one line, and what is neither text nor an object', () => {
    expect(policyProblem("default-src 'none'\r\nX-Injected: 1")).toMatch(/one line/);
    expect(policyProblem(['connect-src *'])).toMatch(/policy \(text\) or an object/);
    expect(policyProblem(null)).toMatch(/policy \(text\) or an object/);
  });

  it('reads an object of directives as the header’s text, in the order given', () => {
    expect(policyText({ 'default-src': "'none'", 'connect-src': 'https://api.example.com' })).toBe(
      "default-src 'none'; connect-src https://api.example.com",
    );
    expect(policyText("connect-src 'none'")).toBe("connect-src 'none'");
    expect(policyText({})).toBeNull();
    expect(policyText(null)).toBeNull();
  });
});
