import {
  assertAttributes,
  assertComputed,
  COMPUTED_PROPS_MAX_DEPTH,
  COMPUTED_PROPS_MAX_STRING,
  COMPUTED_PROPS_MAX_VALUES,
  SLUG_MAX_LENGTH,
  SLUG_PATTERN,
  slugify,
  uniqueSlug,
} from './page-rules';

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

describe('a computed source', () => {
  const source = (overrides: Record<string, unknown> = {}) => ({
    type: 'builtin:openapi',
    dependencies: { spec: { ref: { kind: 'openapi', spec: 'pets' } } },
    props: {},
    ...overrides,
  });
  const refused = (value: unknown, message: RegExp) =>
    expect(() => assertComputed(value)).toThrow(expect.objectContaining({ status: 400, message: expect.stringMatching(message) }));

  it('is builtin:openapi on a spec by slug, with props narrowing it', () => {
    expect(() =>
      assertComputed(source({ props: { tags: ['pets'], paths: ['/pets/{petId}'], layout: { wide: true, columns: [1, 2] } } })),
    ).not.toThrow();
    expect(() => assertAttributes({ title: 'API', computed: source() }, false)).not.toThrow();
  });

  it('refuses a type other than builtin:openapi', () => {
    refused(source({ type: 'builtin:graphql' }), /type must be one of builtin:openapi/);
    refused(source({ type: 42 }), /type must be one of builtin:openapi/);
  });

  it('refuses a dependency that is not an OpenAPI spec named by a valid slug', () => {
    refused(source({ dependencies: { spec: { ref: { kind: 'page', page: 'p1' } } } }), /dependencies.spec.ref/);
    refused(source({ dependencies: { spec: { ref: { kind: 'openapi', spec: 'Not A Slug' } } } }), /dependencies.spec.ref/);
    refused(source({ dependencies: { spec: { ref: { kind: 'openapi', spec: 'a'.repeat(101) } } } }), /dependencies.spec.ref/);
    refused(source({ dependencies: { spec: { ref: { kind: 'openapi', spec: 'pets', extra: 1 } } } }), /dependencies.spec.ref/);
    refused(source({ dependencies: { other: {} } }), /dependencies must be/);
    refused(source({ extra: true }), /is not a member/);
  });

  it('refuses props named like prototype members, nested too deep, too many or too long, or filters that are not lists of strings', () => {
    refused(source({ props: JSON.parse('{"__proto__": {"polluted": true}}') }), /member named "__proto__"/);
    refused(source({ props: { nested: { constructor: 1 } } }), /member named "constructor"/);
    let deep: unknown = 'leaf';
    for (let level = 0; level <= COMPUTED_PROPS_MAX_DEPTH; level++) deep = { deeper: deep };
    refused(source({ props: deep }), /levels deep/);
    refused(source({ props: { many: Array.from({ length: COMPUTED_PROPS_MAX_VALUES }, (_, index) => index) } }), /at most \d+ values/);
    refused(source({ props: { text: 'x'.repeat(COMPUTED_PROPS_MAX_STRING + 1) } }), /at most \d+ characters/);
    refused(source({ props: { tags: 'pets' } }), /props.tags must be a list/);
    refused(source({ props: { paths: [1] } }), /props.paths must be a list/);
    refused(source({ props: [] }), /props must be an object/);
    expect({}).not.toHaveProperty('polluted');
  });
});
