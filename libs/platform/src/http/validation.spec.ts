import { validateSync } from 'class-validator';
import { NotBlank } from './validation';

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
