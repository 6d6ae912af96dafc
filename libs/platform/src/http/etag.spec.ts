import { etagOf, parseIfMatch } from './etag';

const statusOf = (header: string | string[]) => {
  try {
    parseIfMatch(header);
    return 'accepted';
  } catch (error) {
    return (error as { status: number }).status;
  }
};

describe('If-Match', () => {
  it('without the header, then no precondition', () => {
    expect(parseIfMatch(undefined)).toBeUndefined();
  });

  it('given *, then no precondition', () => {
    expect(parseIfMatch('*')).toBeUndefined();
    expect(parseIfMatch('  *  ')).toBeUndefined();
  });

  it('given a strong ETag of ours, then its revision', () => {
    expect(parseIfMatch(etagOf(7))).toBe(7);
    expect(parseIfMatch('"0"')).toBe(0);
  });

  it('given a list, then the revision its strong tags name, weak and foreign tags ignored', () => {
    expect(parseIfMatch('W/"2", "3", "abc"')).toBe(3);
    expect(parseIfMatch(['"3"', 'W/"4"'])).toBe(3);
  });

  it('given only a weak tag, then 412: If-Match uses the strong comparison', () => {
    expect(statusOf('W/"2"')).toBe(412);
    expect(statusOf('W/"2", W/"3"')).toBe(412);
  });

  it.each([
    ['not one of our ETags', '"abc"'],
    ['empty', '""'],
    ['a revision with a leading zero', '"007"'],
    ['a negative revision', '"-1"'],
  ])('given a well-formed tag that can never match (%s), then 412', (_label, header) => {
    expect(statusOf(header)).toBe(412);
  });

  it.each([
    ['unquoted', '5'],
    ['a word', 'garbage'],
    ['empty', ''],
    ['unterminated', '"5'],
    ['* in a list', '*, "5"'],
    ['a lower-case weak prefix', 'w/"5"'],
    ['a quote inside the tag', '"5"6"'],
    ['a trailing comma', '"5",'],
  ])('given a malformed header (%s), then 400', (_label, header) => {
    expect(statusOf(header)).toBe(400);
  });

  it('given strong tags naming two revisions, then 400: a write is checked against one revision', () => {
    expect(statusOf('"1", "2"')).toBe(400);
    expect(parseIfMatch('"2", "2"')).toBe(2);
  });
});
