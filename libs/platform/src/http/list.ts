import { Transform, Type } from 'class-transformer';
import { applyDecorators } from '@nestjs/common';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** `limit`: 1 to 1000; 0, which the platform's schema allows, asks for the default page size as an absent limit does. */
export function LimitQuery(): PropertyDecorator {
  // In the order stacked decorators apply (bottom up), which the OpenAPI converter reads (IsInt: an integer).
  return applyDecorators(
    Max(1000, { message: 'limit must be between 0 and 1000' }),
    Min(0, { message: 'limit must be between 0 and 1000' }),
    IsInt({ message: 'limit must be an integer' }),
    Transform(({ value }) =>
      value === undefined || value === null || value === '' ? undefined : Number(value) === 0 ? undefined : Number(value),
    ),
    Type(() => Number),
    IsOptional(),
  );
}

/** `page` and `limit`, shared by every list endpoint (docs/architecture.md, HTTP conventions). */
export class ListQuery {
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  page?: string;

  @LimitQuery()
  limit?: number;
}

/** The paginated envelope: `{ next?: { page }, count, items }`. */
export interface ListEnvelope<T> {
  next?: { page: string };
  count: number;
  items: T[];
}

export function listEnvelope<T>(page: { items: T[]; count: number; next?: string }): ListEnvelope<T> {
  return page.next === undefined
    ? { count: page.count, items: page.items }
    : { next: { page: page.next }, count: page.count, items: page.items };
}
