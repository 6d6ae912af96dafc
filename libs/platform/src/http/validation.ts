import { BadRequestException, ValidationPipe, type ValidationError } from '@nestjs/common';
import { buildMessage, ValidateBy, type ValidationOptions } from 'class-validator';

function describe(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) =>
      message.startsWith(path) ? message : message.startsWith(error.property) ? `${path}${message.slice(error.property.length)}` : `${path}: ${message}`,
    );
    return [...own, ...describe(error.children ?? [], path)];
  });
}

/**
 * The pipe every body and query DTO goes through: `@Body(Valid)`, `@Query(Valid)`. Unknown members
 * are refused, values are converted to the DTO's types, and the message names the offending field
 * (with its path for nested members). Attached to those parameters rather than installed globally,
 * because a global pipe puts every parameter of every route (path ids, the caller, the reply)
 * through an asynchronous pipe chain on every request. app.spec.ts checks that no route takes a
 * body or query without it.
 */
export const Valid = new ValidationPipe({
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
