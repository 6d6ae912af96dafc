import { canonicalEmoji } from './comment.reactions';

describe('reaction emoji: one stored form', () => {
  it('given a codepoint in lower or upper case, then the emoji’s character', () => {
    expect(canonicalEmoji('1f44d')).toBe('👍');
    expect(canonicalEmoji('1F389')).toBe('🎉');
  });

  it('given a character, then the same character', () => {
    expect(canonicalEmoji('👍')).toBe('👍');
  });

  it('given an emoji that shows as text unless asked, with or without its selector or as a codepoint, then its fully-qualified form', () => {
    expect(canonicalEmoji('2764')).toBe('❤️');
    expect(canonicalEmoji('❤')).toBe('❤️');
    expect(canonicalEmoji('❤️')).toBe('❤️');
  });

  it('given a sequence as codepoints joined by -, then the sequence', () => {
    expect(canonicalEmoji('1f3f3-fe0f-200d-1f308')).toBe('🏳️‍🌈');
    expect(canonicalEmoji('1f3f3-200d-1f308')).toBe('🏳️‍🌈');
    expect(canonicalEmoji('31-20e3')).toBe('1️⃣');
  });

  it('given a skin tone, then no selector before the modifier', () => {
    expect(canonicalEmoji('261d-1f3fd')).toBe('☝🏽');
    expect(canonicalEmoji('☝️🏽')).toBe('☝🏽');
  });

  it('given a shortcode, then the shortcode as sent', () => {
    expect(canonicalEmoji(':thumbsup:')).toBe(':thumbsup:');
  });

  it('given what is not one emoji, then null', () => {
    for (const sent of ['a', 'cafe', '123', '0', '110000', 'd83d', '\ud83d', '👍👍', '', 'x'.repeat(60), '👍 '])
      expect(canonicalEmoji(sent)).toBeNull();
  });
});
