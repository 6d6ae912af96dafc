import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** `page` and `limit`, shared by every list endpoint (docs/architecture.md, HTTP conventions). */
export class ListQuery {
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  page?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1, { message: 'limit must be at least 1' })
  @Max(1000, { message: 'limit must be at most 1000' })
  limit?: number;
}

/** The paginated envelope: `{ next?: { page }, count, items }`. */
export interface ListEnvelope<T> {
  next?: { page: string };
  count: number;
  items: T[];
}

export function listEnvelope<T>(page: { items: T[]; count: number; next?: string }): ListEnvelope<T> {
  return page.next === undefined ? { count: page.count, items: page.items } : { next: { page: page.next }, count: page.count, items: page.items };
}
