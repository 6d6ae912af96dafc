import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { ID_SHAPES } from '../../platform/src/ids';
import { ListQuery } from '../../platform/src/http/list';
import { MAX_CHANGES } from './content.changes';
import type { ContentReadOptions, LinkStatus } from './content.queries';

const BOOLEAN = ['true', 'false'] as const;
type BooleanText = (typeof BOOLEAN)[number];

/** The flags of every content read (docs/content.md, Reads). */
export class ContentReadQuery {
  @ApiPropertyOptional({ description: 'a revision of the space; default its primary content' })
  @IsOptional()
  @Matches(ID_SHAPES.entity, { message: 'revision must be a revision id' })
  revision?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  shareKey?: string;

  @ApiPropertyOptional({ enum: BOOLEAN, description: 'false omits git metadata (none is kept: accepted for compatibility)' })
  @IsOptional()
  @IsIn(BOOLEAN, { message: 'metadata must be true or false' })
  metadata?: BooleanText;

  @ApiPropertyOptional({ enum: BOOLEAN, description: 'false skips computed content: computed pages and OpenAPI operation blocks are then shown as stored, without what the spec\'s latest version gives them' })
  @IsOptional()
  @IsIn(BOOLEAN, { message: 'computed must be true or false' })
  computed?: BooleanText;

  @ApiPropertyOptional({ enum: BOOLEAN, description: 'true substitutes the space and page variables in the body' })
  @IsOptional()
  @IsIn(BOOLEAN, { message: 'evaluated must be true or false' })
  evaluated?: BooleanText;

  @ApiPropertyOptional({ enum: ['markdown', 'document'], description: 'page reads: the body as markdown or as a JSON document (default)' })
  @IsOptional()
  @IsIn(['markdown', 'document'], { message: 'format must be markdown or document' })
  format?: 'markdown' | 'document';
}

export function readOptions(query: ContentReadQuery): ContentReadOptions {
  return {
    ...(query.revision !== undefined ? { revision: query.revision } : {}),
    ...(query.shareKey !== undefined ? { shareKey: query.shareKey } : {}),
    ...(query.format !== undefined ? { format: query.format } : {}),
    evaluated: query.evaluated === 'true',
    computed: query.computed !== 'false',
  };
}

/** The flags with `page` and `limit` (as ListQuery has them): file lists. */
export class ContentListQuery extends ContentReadQuery {
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

export class LinksQuery extends ListQuery {
  @ApiPropertyOptional({ enum: ['ok', 'broken', 'in-app'] })
  @IsOptional()
  @IsIn(['ok', 'broken', 'in-app'], { message: 'status must be ok, broken or in-app' })
  status?: LinkStatus;
}

export class SearchQuery extends ListQuery {
  @ApiProperty({ description: 'the words to look for' })
  @IsString()
  @MinLength(1)
  @MaxLength(512)
  query!: string;
}

export class WriteContentBody {
  @ApiProperty({ description: `1..${MAX_CHANGES} changes: insert_page, update_page, delete_page, revert_page, insert_files, update_variables (docs/content.md); insert_page and update_page may set a computed source (computed: null removes it)`, type: 'array', items: { type: 'object' } })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_CHANGES)
  changes!: unknown[];
}

export class ImportBody {
  @ApiProperty({ enum: ['website', 'markdown', 'zip'] })
  @IsIn(['website', 'markdown', 'zip'], { message: 'source must be website, markdown or zip' })
  source!: 'website' | 'markdown' | 'zip';

  @ApiProperty({ description: 'where the content is fetched from (http or https)' })
  @IsString()
  @MaxLength(2048)
  @Matches(/^https?:\/\//i, { message: 'url must be an http or https URL' })
  url!: string;
}

export class RollbackBody {
  @ApiPropertyOptional({ description: 'roll back only this page; absent: the whole space' })
  @IsOptional()
  @Matches(ID_SHAPES.entity, { message: 'page must be a page id' })
  page?: string;
}

export class DownloadQuery {
  @Matches(ID_SHAPES.entity, { message: 'revision must be a revision id' })
  revision!: string;

  @IsOptional()
  @Matches(/^\d{1,12}$/, { message: 'expires must be a time in seconds' })
  expires?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,128}$/, { message: 'signature is malformed' })
  signature?: string;
}
