import { SLUG_MAX_LENGTH, SLUG_PATTERN, slugify, uniqueSlug } from './page-rules';

describe('slug rules', () => {
  it('derives a lower-case ASCII slug from a title, words joined by single hyphens', () => {
    expect(slugify('  Getting Started: the Basics!  ')).toBe('getting-started-the-basics');
  });

  it('transliterates accents rather than dropping the letters', () => {
    expect(slugify('Café Crème à la Señora')).toBe('cafe-creme-a-la-senora');
  });

  it('falls back to "page" when nothing ASCII is left', () => {
    expect(slugify('日本語')).toBe('page');
    expect(slugify('!!!')).toBe('page');
    expect(slugify('')).toBe('page');
  });

  it('cuts a long title at the maximum length, never ending on a hyphen', () => {
    const slug = slugify('word '.repeat(100));
    expect(slug.length).toBeLessThanOrEqual(SLUG_MAX_LENGTH);
    expect(slug).toMatch(SLUG_PATTERN);
  });

  it('makes a slug unique among siblings with -2, -3, …', () => {
    expect(uniqueSlug('intro', new Set())).toBe('intro');
    expect(uniqueSlug('intro', new Set(['intro']))).toBe('intro-2');
    expect(uniqueSlug('intro', new Set(['intro', 'intro-2']))).toBe('intro-3');
  });

  it('keeps a suffixed slug within the maximum length', () => {
    const long = 'a'.repeat(SLUG_MAX_LENGTH);
    const unique = uniqueSlug(long, new Set([long]));
    expect(unique.length).toBe(SLUG_MAX_LENGTH);
    expect(unique.endsWith('-2')).toBe(true);
  });
});
