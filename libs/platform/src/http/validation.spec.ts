import { ArrayMaxSize, IsArray, IsOptional, IsString, ValidateIf, validateSync } from 'class-validator';
import { NotBlank, Valid } from './validation';

class Named {
  @NotBlank()
  title: unknown;
}

const errorsFor = (title: unknown) => {
  const named = new Named();
  named.title = title;
  return validateSync(named).flatMap((error) => Object.values(error.constraints ?? {}));
};

describe('@NotBlank', () => {
  it('accepts text that shows something', () => {
    expect(errorsFor('Acme')).toEqual([]);
    expect(errorsFor('  a  ')).toEqual([]);
    expect(errorsFor('😀')).toEqual([]);
  });

  it.each([
    ['empty', ''],
    ['spaces', '   '],
    ['tabs and line breaks', '\t\r\n'],
    ['no-break and ideographic spaces', '\u00a0\u3000'],
    ['a zero-width space and a byte order mark', '\u200b\ufeff'],
    ['NUL', '\u0000'],
  ])('refuses %s as blank', (_label, title) => {
    expect(errorsFor(title)).toEqual(['title must not be blank']);
  });

  it('leaves other types to the type checks', () => {
    expect(errorsFor(undefined)).toEqual([]);
    expect(errorsFor(42)).toEqual([]);
  });
});

class OptionalQuery {
  @IsOptional()
  @IsString()
  shareKey?: string;
}

class RequiredQuery {
  @IsString()
  q!: string;
}

describe('Valid on query strings', () => {
  const query = (metatype: new () => unknown) => ({ type: 'query' as const, metatype, data: undefined });

  it('answers an empty query with an instance of the DTO, the second time too', async () => {
    const first = await Valid.transform({}, query(OptionalQuery));
    const second = await Valid.transform(Object.create(null), query(OptionalQuery));
    expect(second).toBeInstanceOf(OptionalQuery);
    expect(second).toStrictEqual(first);
    expect(second).not.toBe(first);
  });

  it('still refuses an empty query that misses a required member, every time', async () => {
    await expect(Valid.transform({}, query(RequiredQuery))).rejects.toThrow('q must be a string');
    await expect(Valid.transform({}, query(RequiredQuery))).rejects.toThrow('q must be a string');
  });

  it('still checks a query that is not empty after an empty one was accepted', async () => {
    await Valid.transform({}, query(OptionalQuery));
    await expect(Valid.transform({ other: 'x' }, query(OptionalQuery))).rejects.toThrow('property other should not exist');
  });
});

class Listed {
  @ValidateIf((_object, value) => value !== undefined)
  @IsArray()
  @ArrayMaxSize(3)
  @IsString({ each: true })
  tags?: string[];

  @ValidateIf((object: { kind?: string }) => object.kind === 'checked')
  @ArrayMaxSize(2)
  items?: unknown[];

  @IsOptional()
  @IsString()
  kind?: string;
}

describe('Valid on arrays with @ArrayMaxSize', () => {
  const body = { type: 'body' as const, metatype: Listed, data: undefined };

  it('refuses an array past its maximum with that rule’s message alone, whatever its elements', async () => {
    await expect(Valid.transform({ tags: Array.from({ length: 100_000 }, () => 0) }, body)).rejects.toThrow(
      /^tags must contain no more than 3 elements$/,
    );
  });

  it('leaves arrays within their maximum to the full pipe', async () => {
    await expect(Valid.transform({ tags: ['a', 0] }, body)).rejects.toThrow('each value in tags must be a string');
    await expect(Valid.transform({ tags: ['a', 'b', 'c'] }, body)).resolves.toEqual({ tags: ['a', 'b', 'c'] });
  });

  it('does not refuse a member that a condition leaves unvalidated', async () => {
    await expect(Valid.transform({ kind: 'free', items: [1, 2, 3] }, body)).resolves.toEqual({ kind: 'free', items: [1, 2, 3] });
    await expect(Valid.transform({ kind: 'checked', items: [1, 2, 3] }, body)).rejects.toThrow(
      'items must contain no more than 2 elements',
    );
  });
});
