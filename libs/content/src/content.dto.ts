import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { ID_SHAPES } from '#platform/ids';
import { LimitQuery, ListQuery } from '#platform/http/list';
import { MAX_CHANGES } from './content.changes';
import type { ContentReadOptions } from './content.reads';
import type { LinkStatus } from './link.queries';
import { DEFAULT_MARKDOWN_REFS, MARKDOWN_REFS, type MarkdownRefs } from '#document/markdown-refs';

const BOOLEAN = ['true', 'false'] as const;
type BooleanText = (typeof BOOLEAN)[number];
/** The platform's values of `evaluated` and `dereferenced` (a boolean or one narrower mode). */
const EVALUATED = [...BOOLEAN, 'deterministic-only'] as const;
const DEREFERENCED = [...BOOLEAN, 'reusable-contents'] as const;

/** The flags of every content read (docs/content.md, Reads), with the platform's names and values. */
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

  @ApiPropertyOptional({
    enum: BOOLEAN,
    description: 'true lets git metadata come from a cache (none is kept: accepted for compatibility)',
  })
  @IsOptional()
  @IsIn(BOOLEAN, { message: 'cachedMetadata must be true or false' })
  cachedMetadata?: BooleanText;

  @ApiPropertyOptional({
    enum: BOOLEAN,
    description:
      "false skips computed content: computed pages and OpenAPI operation blocks are then shown as stored, without what the spec's latest version gives them",
  })
  @IsOptional()
  @IsIn(BOOLEAN, { message: 'computed must be true or false' })
  computed?: BooleanText;

  @ApiPropertyOptional({
    enum: EVALUATED,
    description:
      'true (or deterministic-only: every expression the service evaluates is deterministic) substitutes the space and page variables in the body',
  })
  @IsOptional()
  @IsIn(EVALUATED, { message: 'evaluated must be true, false or deterministic-only' })
  evaluated?: (typeof EVALUATED)[number];

  @ApiPropertyOptional({
    enum: DEREFERENCED,
    description:
      'expand references to reusable content (the service keeps none, so a body is the same either way: accepted for compatibility)',
  })
  @IsOptional()
  @IsIn(DEREFERENCED, { message: 'dereferenced must be true, false or reusable-contents' })
  dereferenced?: (typeof DEREFERENCED)[number];

  @ApiPropertyOptional({ enum: ['markdown', 'document'], description: 'the body as markdown or as a JSON document (default)' })
  @IsOptional()
  @IsIn(['markdown', 'document'], { message: 'format must be markdown or document' })
  format?: 'markdown' | 'document';

  @ApiPropertyOptional({
    name: 'format.markdown.refs',
    enum: MARKDOWN_REFS,
    description: `with format=markdown, how page links are written: relative (a path from this page to the other page's markdown file) or stable (/pages/<id>); default ${DEFAULT_MARKDOWN_REFS}`,
  })
  @IsOptional()
  @IsIn(MARKDOWN_REFS, { message: 'format.markdown.refs must be relative or stable' })
  'format.markdown.refs'?: MarkdownRefs;
}

export function readOptions(query: ContentReadQuery): ContentReadOptions {
  return {
    ...(query.revision !== undefined ? { revision: query.revision } : {}),
    ...(query.shareKey !== undefined ? { shareKey: query.shareKey } : {}),
    ...(query.format !== undefined ? { format: query.format } : {}),
    markdownRefs: query['format.markdown.refs'] ?? DEFAULT_MARKDOWN_REFS,
    evaluated: query.evaluated === 'true' || query.evaluated === 'deterministic-only',
    computed: query.computed !== 'false',
  };
}

/** The flags with `page` and `limit` (as ListQuery has them): file lists. */
export class ContentListQuery extends ContentReadQuery {
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  page?: string;

  @LimitQuery()
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
  @ApiProperty({
    description: `1..${MAX_CHANGES} changes: insert_page, update_page, delete_page, revert_page, insert_files, update_variables (docs/content.md); insert_page and update_page may set a computed source (computed: null removes it)`,
    type: 'array',
    items: { type: 'object' },
  })
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
