import { isAcceptableText } from './input-text';

describe('the input text rule', () => {
  it('accepts any well-formed text with tab, line feed and carriage return', () => {
    expect(isAcceptableText('Ada Lovelace — 😀 \t\r\n ÿ')).toBe(true);
    expect(isAcceptableText('')).toBe(true);
  });

  it.each([
    ['a lone high surrogate', 'a\ud800'],
    ['a lone low surrogate', '\udc00b'],
    ['surrogates in the wrong order', '\ude00\ud83d'],
    ['NUL', '\u0000'],
    ['ESC', '\u001b'],
    ['vertical tab', '\u000b'],
    ['DEL', '\u007f'],
    ['C1 NEL', '\u0085'],
    ['C1 CSI', '\u009b'],
  ])('refuses %s', (_label, text) => {
    expect(isAcceptableText(text)).toBe(false);
  });
});
