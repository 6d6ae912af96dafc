import { firstMatchOffset, MAX_TERM_LENGTH, normalizeText, snippet, SNIPPET_LENGTH, tokenize } from './text';

describe('normalizeText', () => {
  it('lower-cases and folds diacritics', () => {
    expect(normalizeText('Crème Brûlée À LA Carte')).toBe('creme brulee a la carte');
  });

  it('keeps Hangul syllables whole', () => {
    expect(normalizeText('한국어')).toBe('한국어');
  });
});

describe('tokenize', () => {
  it('splits on everything but letters and digits', () => {
    expect(tokenize('GET /v1/spaces/{spaceId}: e-mail, v2.0!')).toEqual(['get', 'v1', 'spaces', 'spaceid', 'e', 'mail', 'v2', '0']);
  });

  it('cuts terms at MAX_TERM_LENGTH', () => {
    expect(tokenize('x'.repeat(500))).toEqual(['x'.repeat(MAX_TERM_LENGTH)]);
  });
});

describe('firstMatchOffset', () => {
  it('finds the first accepted word, in the original text', () => {
    expect(firstMatchOffset('Un café, deux cafés.', (term) => term === 'cafes')).toBe(14);
  });

  it('finds words after characters that fold to several', () => {
    // 'ﬁ' (one character) folds to 'fi' (two): offsets after it still point into the original.
    expect(firstMatchOffset('ﬁle élan target', (term) => term === 'target')).toBe(9);
  });

  it('answers null when no word is accepted', () => {
    expect(firstMatchOffset('nothing here', () => false)).toBeNull();
  });
});

describe('snippet', () => {
  const long = `${'alpha '.repeat(100)}needle ${'omega '.repeat(100)}`;

  it('keeps a short text whole, whitespace collapsed', () => {
    expect(snippet('  short\n\ttext  ', null)).toBe('short text');
  });

  it('cuts around the match with ellipses, within SNIPPET_LENGTH', () => {
    const cut = snippet(long, long.indexOf('needle'));

    expect(cut).toContain('needle');
    expect(cut.startsWith('…alpha')).toBe(true);
    expect(cut.endsWith('omega…')).toBe(true);
    expect(cut.length).toBeLessThanOrEqual(SNIPPET_LENGTH);
  });

  it('starts at the beginning without a match', () => {
    const cut = snippet(long, null);

    expect(cut.startsWith('alpha alpha')).toBe(true);
    expect(cut.length).toBeLessThanOrEqual(SNIPPET_LENGTH);
  });

  it('cuts a text without spaces within SNIPPET_LENGTH, never inside a surrogate pair', () => {
    const emoji = '😀'.repeat(400);

    for (const at of [0, 1, 2, 301, 500]) {
      const cut = snippet(emoji, at);
      expect(cut.length).toBeLessThanOrEqual(SNIPPET_LENGTH);
      expect(cut.replace(/…/g, '')).toMatch(/^(?:😀)+$/u);
    }
  });
});
