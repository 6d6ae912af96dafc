import { DomainError } from '#platform/errors';
import { canonicalLanguage, canonicalLanguages } from './translation.languages';

const refusal = (run: () => unknown): { status: number; message: string } | null => {
  try {
    run();
    return null;
  } catch (error) {
    return error instanceof DomainError ? { status: error.status, message: error.message } : { status: 0, message: String(error) };
  }
};

describe('languages of translation settings (BCP 47, through language-tags and the IANA registry)', () => {
  it.each([
    ['en', 'en'],
    ['EN-gb', 'en-GB'],
    ['zh-hant-tw', 'zh-Hant-TW'],
    ['es-419', 'es-419'],
    ['de-CH-1901', 'de-CH-1901'],
    ['en-US-x-twain', 'en-US-x-twain'],
  ])('takes %s in the registry’s case conventions: %s', (given, canonical) => {
    expect(canonicalLanguage(given)).toBe(canonical);
  });

  it.each([
    ['iw', 'he'],
    ['in-ID', 'id-ID'],
    ['de-DD', 'de-DE'],
    ['zh-yue', 'yue'],
    ['i-klingon', 'tlh'],
    ['ar-aao', 'aao'],
    ['en-Latn-US', 'en-US'],
  ])('stores %s in canonical form: %s', (given, canonical) => {
    expect(canonicalLanguage(given)).toBe(canonical);
  });

  it.each(['xx', 'en-US-US', 'en-a', 'x-private', 'english', 'en_US', 'en--US', '', '__proto__', 'constructor', 'toString', 'en-\u00e9'])(
    'refuses %j with 400 naming it',
    (value) => {
      expect(refusal(() => canonicalLanguage(value))).toEqual({ status: 400, message: expect.stringContaining(JSON.stringify(value)) });
    },
  );

  it('refuses a tag longer than 64 characters without asking the registry', () => {
    const long = `en-${'a1b2c3d4-'.repeat(8)}x`;
    expect(refusal(() => canonicalLanguage(long))).toEqual({ status: 400, message: expect.stringContaining('1 to 8 letters or digits') });
  });

  it('keeps the order given', () => {
    expect(canonicalLanguages(['fr', 'de', 'ja'])).toEqual(['fr', 'de', 'ja']);
  });

  it('refuses a language listed twice, naming it', () => {
    expect(refusal(() => canonicalLanguages(['fr', 'fr']))).toEqual({ status: 400, message: 'languages lists "fr" twice' });
  });

  it('refuses two spellings of one language, naming both', () => {
    expect(refusal(() => canonicalLanguages(['he', 'iw']))).toEqual({
      status: 400,
      message: expect.stringMatching(/"he" and "iw".*\(he\)/),
    });
  });
});
