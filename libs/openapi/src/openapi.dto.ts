import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsObject, IsString, IsUrl, Length, Matches, MaxLength, ValidateIf, ValidateNested } from 'class-validator';

const given = (_: object, value: unknown) => value !== undefined;
/** The interface's slug pattern. */
export const SPEC_SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** Longest `{ text }` source, in characters (the request body limit applies too). */
export const MAX_SOURCE_TEXT = 1_000_000;

/** `{ url }` (fetched by the service) or `{ text }` (the document itself, JSON or YAML); exactly one. */
export class SpecSourceBody {
  @ApiPropertyOptional({ format: 'uri', maxLength: 2048 })
  @ValidateIf(given)
  @IsString()
  @MaxLength(2048)
  @IsUrl({ require_protocol: true, protocols: ['http', 'https'], require_tld: false }, { message: 'source.url must be an http(s) URL' })
  url?: string;

  @ApiPropertyOptional({ maxLength: MAX_SOURCE_TEXT, description: 'the document itself, JSON or YAML' })
  @ValidateIf(given)
  @IsString()
  @Length(1, MAX_SOURCE_TEXT)
  text?: string;
}

/** PUT: the source (the slug is in the path). */
export class PutSpecBody {
  @ApiProperty({ type: SpecSourceBody })
  @IsDefined({ message: 'source is required' })
  @IsObject({ message: 'source must be { url } or { text }' })
  @ValidateNested()
  @Type(() => SpecSourceBody)
  source!: SpecSourceBody;
}

/** POST: a slug and its source. */
export class CreateSpecBody extends PutSpecBody {
  @ApiProperty({ pattern: SPEC_SLUG.source, minLength: 1, maxLength: 100 })
  @IsString()
  @Length(1, 100)
  @Matches(SPEC_SLUG, { message: 'slug must be lower-case letters and digits, words joined by single hyphens' })
  slug!: string;
}
