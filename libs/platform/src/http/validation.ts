import { BadRequestException, ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';

/** Validates bodies and query objects only: path parameters have their own pipes (IdParam), and skipping them saves work on every request. */
class BodyAndQueryValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'body' && metadata.type !== 'query') return Promise.resolve(value);
    return super.transform(value, metadata);
  }
}

/**
 * Validation for every body and query DTO: unknown members are refused, values are converted to
 * the DTO's types, and the message names the offending field (with its path for nested members).
 */
export function createValidationPipe(): ValidationPipe {
  return new BodyAndQueryValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validateCustomDecorators: false,
    exceptionFactory: (errors) => new BadRequestException(describe(errors).join('; ')),
  });
}

function describe(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) =>
      message.startsWith(path) ? message : message.startsWith(error.property) ? `${path}${message.slice(error.property.length)}` : `${path}: ${message}`,
    );
    return [...own, ...describe(error.children ?? [], path)];
  });
}
