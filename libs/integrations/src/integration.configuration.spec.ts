import type { ValidateFunction } from 'ajv';
import { DomainError } from '#platform/errors';
import {
  checkPublishedComponents,
  checkPublishedConfigurations,
  CONFIGURATION_LIMITS,
  ConfigurationValidators,
} from './integration.configuration';
import type { ConfigurationSchema } from './integration.events';

/** A schema of `count` string properties named p0…, the first required. */
const schemaOf = (count: number, prefix = 'p'): ConfigurationSchema => ({
  properties: Object.fromEntries(
    Array.from({ length: count }, (_, index) => [`${prefix}${index}`, { type: 'string', title: `Field ${index}` }]),
  ),
  required: [`${prefix}0`],
});

function refusal(run: () => void): DomainError {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('configuration validators', () => {
  it('compiles a schema once, however many configurations are validated against it (each call builds a new schema object)', () => {
    const validators = new ConfigurationValidators();
    for (let index = 0; index < 50; index += 1) validators.validate('installation i1', schemaOf(300), { p0: `value ${index}` });
    expect(validators.compilations).toBe(1);
    expect(validators.size).toBe(1);
  });

  it('keeps at most `max` compiled validators, dropping the least recently used', () => {
    const validators = new ConfigurationValidators({ max: 3 });
    for (let index = 0; index < 10; index += 1) validators.validate('installation i1', schemaOf(2, `s${index}_`), { [`s${index}_0`]: 'x' });
    expect(validators.size).toBe(3);
    expect(validators.compilations).toBe(10);
    validators.validate('installation i1', schemaOf(2, 's9_'), { s9_0: 'x' });
    expect(validators.compilations).toBe(10);
    validators.validate('installation i1', schemaOf(2, 's0_'), { s0_0: 'x' });
    expect(validators.compilations).toBe(11);
    expect(validators.size).toBe(3);
  });

  it('keeps no more schema than `maxSchemaChars` in all, and does not keep a schema larger than that', () => {
    const validators = new ConfigurationValidators({ maxSchemaChars: 2_000 });
    for (let index = 0; index < 20; index += 1) validators.validate('installation i1', schemaOf(5, `s${index}_`), { [`s${index}_0`]: 'x' });
    expect(validators.size).toBeLessThan(20);
    expect(validators.size).toBeGreaterThan(0);
    const large = new ConfigurationValidators({ maxSchemaChars: 100 });
    large.validate('installation i1', schemaOf(50), { p0: 'x' });
    expect(large.size).toBe(0);
  });

  it('answers 400 naming the property that does not follow the schema, or the one missing', () => {
    const validators = new ConfigurationValidators();
    const schema: ConfigurationSchema = {
      properties: { channel: { type: 'string' }, mode: { type: 'string', enum: ['fast', 'slow'] } },
      required: ['channel'],
    };
    expect(refusal(() => validators.validate('installation i1', schema, { channel: 7 }))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/configuration\.channel must be string/),
    });
    expect(refusal(() => validators.validate('installation i1', schema, {}))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/channel/),
    });
    expect(refusal(() => validators.validate('installation i1', schema, { channel: 'c', mode: 'warp' }))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/configuration\.mode must be one of fast, slow/),
    });
    expect(refusal(() => validators.validate('installation i1', schema, { channel: 'c', extra: 1 }))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/\(extra\)/),
    });
  });

  it('counts only own members: a required `constructor` is not met by an empty configuration', () => {
    const validators = new ConfigurationValidators();
    const schema: ConfigurationSchema = { properties: { constructor: { type: 'string' } }, required: ['constructor'] };
    expect(refusal(() => validators.validate('installation i1', schema, {}))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/constructor/),
    });
    expect(() => validators.validate('installation i1', schema, { constructor: 'a' })).not.toThrow();
  });

  it('refuses a configuration member named __proto__', () => {
    const validators = new ConfigurationValidators();
    expect(
      refusal(() =>
        validators.validate(
          'installation i1',
          schemaOf(1),
          JSON.parse('{"p0":"a","__proto__":{"polluted":true}}') as Record<string, unknown>,
        ),
      ),
    ).toMatchObject({ status: 400, message: expect.stringMatching(/__proto__/) });
  });

  it('answers 422 when a published schema cannot be compiled, instead of failing', () => {
    const validators = new ConfigurationValidators({
      compile: (): ValidateFunction => {
        throw new Error('schema is invalid');
      },
    });
    expect(refusal(() => validators.validate('installation i1', schemaOf(1), { p0: 'x' }))).toMatchObject({
      status: 422,
      message: expect.stringMatching(/configuration schema cannot be used/),
    });
  });
});

describe('configurations checked when published', () => {
  const invalid = (configurations: unknown, message: RegExp) =>
    expect(refusal(() => checkPublishedConfigurations(configurations as never))).toMatchObject({
      status: 400,
      message: expect.stringMatching(message),
    });

  it('accepts the platform’s shapes: a schema of properties (up to the limit), or a ContentKit component', () => {
    expect(() =>
      checkPublishedConfigurations({
        account: schemaOf(CONFIGURATION_LIMITS.properties),
        space: { properties: { on: { type: 'boolean', default: true } } },
      }),
    ).not.toThrow();
    expect(() => checkPublishedConfigurations({ site: { componentId: 'configure' } } as never)).not.toThrow();
    expect(() => checkPublishedConfigurations({})).not.toThrow();
  });

  it('refuses a schema with more properties than the limit', () => {
    invalid(
      { account: schemaOf(CONFIGURATION_LIMITS.properties + 1) },
      /configurations\.account\.properties must NOT have more than 500 properties/,
    );
  });

  it('refuses configurations nested deeper than the limit', () => {
    let deep: Record<string, unknown> = { leaf: true };
    for (let level = 0; level < 20; level += 1) deep = { deeper: deep };
    invalid({ account: { properties: { a: { type: 'string', default: deep } } } }, /nested deeper than 8 levels/);
  });

  it('refuses configurations larger than the limit', () => {
    invalid(
      {
        account: { properties: { a: { type: 'string', description: 'x'.repeat(CONFIGURATION_LIMITS.textLength) } } },
        site: {
          properties: Object.fromEntries(
            Array.from({ length: 60 }, (_, index) => [
              `p${index}`,
              { type: 'string', description: 'x'.repeat(CONFIGURATION_LIMITS.textLength) },
            ]),
          ),
        },
      },
      /larger than/,
    );
  });

  it('refuses what is not the platform’s shape, naming the member', () => {
    invalid({ billing: { properties: {} } }, /configurations must NOT have additional properties \(billing\)/);
    invalid({ account: { required: [] } }, /configurations\.account must have required property/);
    invalid(
      { account: { properties: { a: { type: 'object' } } } },
      /configurations\.account\.properties\.a\.type must be one of string, number, boolean, button/,
    );
    invalid(
      { account: { properties: { a: { type: 'string', enum: 'fast' } } } },
      /configurations\.account\.properties\.a\.enum must be array/,
    );
    invalid(
      {
        account: {
          properties: {
            a: { type: 'string', enum: Array.from({ length: CONFIGURATION_LIMITS.enumValues + 1 }, (_, index) => `v${index}`) },
          },
        },
      },
      /enum must NOT have more than 1000 items/,
    );
    invalid(
      JSON.parse('{"account":{"properties":{"__proto__":{"type":"string"}}}}'),
      /configurations\.account\.properties has a property name that is not allowed \("__proto__"/,
    );
    invalid(
      { account: { properties: { ['n'.repeat(CONFIGURATION_LIMITS.nameLength + 1)]: { type: 'string' } } } },
      /property name that is not allowed \("nnnn.*must NOT have more than 100 characters/,
    );
  });

  it('refuses a `required` naming a property the schema does not define', () => {
    invalid({ account: { properties: { a: { type: 'string' } }, required: ['b'] } }, /configurations\.account\.required names "b"/);
    invalid(JSON.parse('{"account":{"properties":{"a":{"type":"string"}},"required":["constructor"]}}'), /names "constructor"/);
  });
});

describe("a publication's blocks, content sources and external links", () => {
  it("takes the platform's shapes", () => {
    expect(() =>
      checkPublishedComponents({
        blocks: [
          {
            id: 'b',
            title: 'Block',
            description: 'A block',
            urlUnfurl: ['https://example.com/x'],
            markdown: { codeblock: 'b', body: 'text' },
          },
        ],
        contentSources: [{ id: 'c', title: 'Source', configuration: { componentId: 'picker' } }],
        externalLinks: [{ url: 'https://example.com', label: 'Home' }],
      }),
    ).not.toThrow();
  });

  it('refuses a block without a title, naming it', () => {
    expect(refusal(() => checkPublishedComponents({ blocks: [{ id: 'b' } as never] })).message).toMatch(
      /^blocks\.0 must have required property 'title'/,
    );
  });

  it('refuses a content source without a component to configure it', () => {
    expect(refusal(() => checkPublishedComponents({ contentSources: [{ id: 'c', title: 'Source' } as never] })).message).toMatch(
      /^contentSources\.0 must have required property 'configuration'/,
    );
  });

  it('refuses an external link that is not an http(s) URL, and members the platform does not define', () => {
    expect(refusal(() => checkPublishedComponents({ externalLinks: [{ url: 'javascript:alert(1)', label: 'x' }] })).message).toMatch(
      /^externalLinks\.0\.url must match pattern/,
    );
    expect(refusal(() => checkPublishedComponents({ blocks: [{ id: 'b', title: 'Block', colour: 'red' } as never] })).message).toMatch(
      /^blocks\.0 must NOT have additional properties \(colour\)/,
    );
  });
});
