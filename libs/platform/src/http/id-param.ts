import type { PipeTransform } from '@nestjs/common';
import { DomainError } from '../errors';
import { ID_PATTERN } from '../ids';

/**
 * Path ids: anything that cannot be an id of ours is simply not found (404), before it reaches a
 * store, so stream names and other internals never show in an error.
 */
export class IdParam implements PipeTransform<string, string> {
  constructor(private readonly resource: string) {}

  transform(value: string): string {
    if (typeof value !== 'string' || !ID_PATTERN.test(value)) {
      throw DomainError.notFound(`no ${this.resource} ${JSON.stringify(String(value).slice(0, 64))}`);
    }
    return value;
  }
}
