import { BadRequestException, ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import { ARRAY_MAX_SIZE, buildMessage, getMetadataStorage, ValidateBy, ValidationTypes, type ValidationOptions } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

function describe(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) =>
      message.startsWith(path)
        ? message
        : message.startsWith(error.property)
          ? `${path}${message.slice(error.property.length)}`
          : `${path}: ${message}`,
    );
    return [...own, ...describe(error.children ?? [], path)];
  });
}

/**
 * The pipe every body and query DTO goes through: `@Body(Valid)`, `@Query(Valid)`. Unknown members
 * are refused, values are converted to the DTO's types, and the message names the offending field
 * (with its path for nested members). Attached to those parameters rather than installed globally,
 * because a global pipe puts every parameter of every route (path ids, the caller, the reply)
 * through an asynchronous pipe chain on every request. app.e2e.ts checks that no route takes a
 * body or query without it.
 */
/**
 * class-validator looks up a class's rules on every validation by walking the rules of every class
 * it knows (an `instanceof` per DTO class) and regrouping them by property: a cost that grows with
 * the application, about 40 µs of each request here. The rules are fixed once the DTO classes are
 * loaded, so both answers are kept until a rule is added.
 */
function memoizeValidationMetadata(): void {
  const storage = getMetadataStorage();
  const lookUp = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  let rules = new Map<unknown, Map<string, ValidationMetadata[]>>();
  let grouped = new WeakMap<ValidationMetadata[], Record<string, ValidationMetadata[]>>();
  const forget =
    <A extends unknown[]>(add: (...args: A) => void) =>
    (...args: A): void => {
      rules = new Map();
      grouped = new WeakMap();
      add(...args);
    };
  storage.addValidationMetadata = forget(storage.addValidationMetadata.bind(storage));
  storage.addConstraintMetadata = forget(storage.addConstraintMetadata.bind(storage));
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = JSON.stringify([schema ?? null, always, strictGroups, groups ?? null]);
    let byOptions = rules.get(target);
    if (!byOptions) rules.set(target, (byOptions = new Map()));
    let found = byOptions.get(key);
    if (!found) byOptions.set(key, (found = lookUp(target, schema, always, strictGroups, groups)));
    return found;
  };
  storage.groupByPropertyName = (metadata) => {
    let found = grouped.get(metadata);
    if (!found) grouped.set(metadata, (found = group(metadata)));
    return found;
  };
}
memoizeValidationMetadata();

/**
 * Nest's ValidationPipe, plus one shortcut: most reads come without a query string, and running an
 * empty query through class-transformer and class-validator was about a tenth of a GET's time. Once
 * a DTO class has accepted an empty query, an empty query is answered with a fresh instance, which
 * is what the full pipe returns for it (no members to convert or check). A class that refuses an
 * empty query (a required member) goes through the full pipe every time.
 */
export class DtoValidationPipe extends ValidationPipe {
  private readonly acceptsEmptyQuery = new WeakSet<object>();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { metatype } = metadata;
    if (typeof metatype === 'function') refuseOversizedArrays(value, metatype);
    if (metadata.type !== 'query' || typeof metatype !== 'function' || !isEmptyObject(value)) return super.transform(value, metadata);
    if (this.acceptsEmptyQuery.has(metatype)) return new (metatype as new () => unknown)();
    const result: unknown = await super.transform(value, metadata);
    if (result instanceof metatype) this.acceptsEmptyQuery.add(metatype);
    return result;
  }
}

/**
 * An array member longer than its `@ArrayMaxSize` is refused before the pipe walks it, with the
 * message class-validator gives for that rule: Nest's pipe, class-transformer and class-validator
 * each visit every element (a few microseconds apiece), so a 1 MB body of `[0,0,…]` on a route
 * with a larger body limit held the event loop for over a second before being refused anyway.
 * Rules with their own message, groups or `each`, and members a condition leaves unvalidated
 * (`@ValidateIf`, `@IsOptional`), are left to the full pipe.
 */
function refuseOversizedArrays(value: unknown, metatype: abstract new (...args: never[]) => unknown): void {
  if (typeof value !== 'object' || value === null) return;
  const rules = getMetadataStorage().getTargetValidationMetadatas(metatype, '', false, false);
  for (const rule of rules) {
    if (rule.name !== ARRAY_MAX_SIZE || rule.message !== undefined || rule.each || rule.groups?.length) continue;
    const member: unknown = (value as Record<string, unknown>)[rule.propertyName];
    const max = Number(rule.constraints?.[0]);
    if (!Array.isArray(member) || !(member.length > max)) continue;
    const conditions = rules.filter(
      (other) => other.propertyName === rule.propertyName && other.type === ValidationTypes.CONDITIONAL_VALIDATION,
    );
    if (conditions.every((condition) => condition.constraints[0](value, member)))
      throw new BadRequestException(`${rule.propertyName} must contain no more than ${max} elements`);
  }
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Reflect.ownKeys(value).length === 0;
}

export const Valid = new DtoValidationPipe({
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
  transformOptions: { enableImplicitConversion: false },
  validateCustomDecorators: false,
  exceptionFactory: (errors) => new BadRequestException(describe(errors).join('; ')),
});

/** Nothing a reader would see: white space (Unicode's, as String.prototype.trim knows it), control and format characters (such as U+200B). */
const BLANK = /^[\s\p{Cc}\p{Cf}]*$/u;

/** Whether a text shows nothing when displayed. */
export function isBlank(text: string): boolean {
  return BLANK.test(text);
}

/**
 * `@NotBlank()`: a string must show something, not only white space or invisible characters. The
 * one rule for titles, names and labels in every context; other types are left to the type checks.
 */
export function NotBlank(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'notBlank',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || !isBlank(value),
        defaultMessage: buildMessage((each) => `${each}$property must not be blank`, options),
      },
    },
    options,
  );
}
