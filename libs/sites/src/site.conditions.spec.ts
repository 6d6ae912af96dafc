import { evaluateCondition, parseCondition } from './site.conditions';

describe('adaptive content conditions', () => {
  it('reads claims, with dots and quoted names', () => {
    expect(evaluateCondition('visitor.claims.beta', { beta: true })).toBe(true);
    expect(evaluateCondition("visitor.claims['plan-name'] == 'pro'", { 'plan-name': 'pro' })).toBe(true);
    expect(evaluateCondition('visitor.claims.unsigned.eu', { unsigned: { eu: false } })).toBe(false);
  });

  it('combines with !, comparisons, && and ||', () => {
    const claims = { plan: 'pro', seats: 12, beta: false };
    expect(evaluateCondition("visitor.claims.plan === 'pro' && !visitor.claims.beta", claims)).toBe(true);
    expect(evaluateCondition('visitor.claims.seats >= 10 || visitor.claims.beta', claims)).toBe(true);
    expect(evaluateCondition('visitor.claims.seats < 10', claims)).toBe(false);
  });

  it('treats a missing claim as undefined, so it holds false', () => {
    expect(evaluateCondition('visitor.claims.beta', {})).toBe(false);
    expect(evaluateCondition('visitor.claims.a.b.c', {})).toBe(false);
  });

  it('reads own claims only: __proto__ and constructor find nothing', () => {
    expect(evaluateCondition('visitor.claims.__proto__', {})).toBe(false);
    expect(evaluateCondition('visitor.claims.constructor', {})).toBe(false);
  });

  it('compares numbers with numbers and strings with strings only', () => {
    expect(evaluateCondition("visitor.claims.seats > '5'", { seats: 12 })).toBe(false);
  });

  it('refuses anything but claims and literals: calls, other roots, assignments, other operators', () => {
    for (const text of [
      'process.exit()',
      'visitor.claims.a()',
      'globalThis.x',
      'this',
      'visitor.other',
      'visitor.claims[visitor.claims.k]',
      'visitor.claims.a + 1',
      '[1, 2]',
      'a = 1',
    ]) {
      expect(() => parseCondition(text)).toThrow(/condition/);
    }
  });

  it('refuses a syntax error and very deep nesting', () => {
    expect(() => parseCondition('visitor.claims.a &&')).toThrow(/not a valid expression/);
    expect(() => parseCondition(`${'!'.repeat(40)}visitor.claims.a`)).toThrow(/deeper/);
  });
});
