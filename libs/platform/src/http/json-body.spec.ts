import { jsonDepthExceeds, MAX_JSON_DEPTH, parseJsonBody } from './json-body';

/** An object whose member `a` nests `depth - 1` arrays: `depth` levels in all. */
const nested = (depth: number) => `{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
const refusal = (text: string) => {
  try {
    parseJsonBody(text);
    return null;
  } catch (error) {
    return { status: (error as { status: number }).status, message: (error as Error).message };
  }
};

describe('JSON nesting depth', () => {
  it('counts arrays and objects alike', () => {
    expect(jsonDepthExceeds('{"a":[{"b":[]}]}', 4)).toBe(false);
    expect(jsonDepthExceeds('{"a":[{"b":[]}]}', 3)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonDepthExceeds(JSON.stringify({ a: '[[[[{{{{', b: 'say \\"[[[[\\"', c: '\\\\' }), 1)).toBe(false);
    expect(jsonDepthExceeds('["\\\\", [[]]]', 2)).toBe(true);
  });

  it('refuses 800 KB of [ and passes 400,000 escaped quotes in one string (one pass over the text)', () => {
    expect(jsonDepthExceeds('['.repeat(800_000), MAX_JSON_DEPTH)).toBe(true);
    expect(jsonDepthExceeds(`"${'\\"'.repeat(400_000)}"`, MAX_JSON_DEPTH)).toBe(false);
  });
});

describe('JSON request bodies', () => {
  it('parses a body up to the depth limit', () => {
    expect(parseJsonBody(nested(MAX_JSON_DEPTH))).toBeDefined();
    expect(parseJsonBody('\ufeff{"title":"Tab\\tand\\nlines"}')).toEqual({ title: 'Tab\tand\nlines' });
  });

  it('refuses nesting past the limit with 400, before parsing', () => {
    expect(refusal(nested(MAX_JSON_DEPTH + 1))).toEqual({
      status: 400,
      message: `the request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`,
    });
    expect(refusal(`{"a":${'['.repeat(10_000)}`)?.status).toBe(400);
  });

  it('refuses an empty body and text that is not JSON with 400', () => {
    expect(refusal('')).toEqual({ status: 400, message: 'the request body is empty but Content-Type is application/json' });
    expect(refusal('{"a": ')).toEqual({ status: 400, message: 'the request body is not valid JSON' });
  });

  it.each([
    ['a lone high surrogate', '"a\\ud800b"'],
    ['a lone low surrogate', '"\\udc00"'],
    ['NUL', '"\\u0000"'],
    ['another C0 control', '"\\u001b[31m"'],
    ['DEL', '"\\u007f"'],
    ['a C1 control', '"\\u0085"'],
  ])('refuses %s in a string with 400 naming the field', (_label, text) => {
    expect(refusal(`{"members":[{"email":${text}}]}`)).toEqual({
      status: 400,
      message: expect.stringMatching(/^members\.0\.email must be well-formed Unicode/),
    });
  });

  it('refuses a member name with a control character or a lone surrogate, naming where', () => {
    expect(refusal('{"a":{"b\\u0000":1}}')?.message).toMatch(/^member names in a must be well-formed/);
    expect(refusal('{"\\ud800":1}')?.message).toMatch(/^member names in the request body must be well-formed/);
  });

  it('accepts surrogate pairs, tab, line feed and carriage return', () => {
    expect(parseJsonBody('{"title":"\\ud83d\\ude00 a\\tb\\r\\n"}')).toEqual({ title: '😀 a\tb\r\n' });
  });

  it.each(['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__'])(
    'refuses a member named %s, at any depth, naming where',
    (name) => {
      expect(refusal(`{"a":1,"${name}":{"admin":true}}`)).toEqual({
        status: 400,
        message: `the request body has a member named ${name}, which is not allowed`,
      });
      expect(refusal(`{"memberships":{"${name}":"x"}}`)?.message).toBe(`memberships has a member named ${name}, which is not allowed`);
    },
  );

  it('accepts prototype member names as string values', () => {
    expect(parseJsonBody('{"title":"constructor","tags":["__proto__"]}')).toEqual({ title: 'constructor', tags: ['__proto__'] });
  });

  it.each([
    ['null', 'null'],
    ['an array', '[{"title":"x"}]'],
    ['a string', '"title"'],
    ['a number', '1'],
  ])('refuses a body that is %s: every body is an object', (_label, text) => {
    expect(refusal(text)).toEqual({ status: 400, message: 'the request body must be a JSON object' });
  });
});
