import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsObject, IsOptional, Matches, ValidateIf, ValidateNested } from 'class-validator';
import { ID_SHAPES } from '#platform/ids';
import { ListQuery } from '#platform/http/list';
import type { BodyInput } from './comment.bodies';

const FORMATS = ['markdown', 'document'] as const;
/**
 * The shape of a reaction: an emoji's characters (with modifiers and joiners), its Unicode
 * codepoints in hex joined by `-` (`1f44d`), or a `:shortcode:`. Whether it is one emoji, and its
 * stored form, the decider decides (comment.reactions.ts).
 */
const EMOJI =
  /^(?:[\p{Extended_Pictographic}\p{Emoji_Component}\u200d\ufe0f]{1,16}|[0-9A-Fa-f]{1,6}(?:-[0-9A-Fa-f]{1,6}){0,15}|:[a-z0-9_+-]{1,30}:)$/u;
const BODY_DESCRIPTION =
  '`{ markdown }` (at most 16 KiB; `@<userId>` mentions a member) or `{ document }` (a JSON document, at most 64 KiB as markdown)';
const given = (_: object, value: unknown) => value !== undefined;

export class FormatQuery {
  @ApiPropertyOptional({ enum: FORMATS, description: 'bodies as markdown (default) or as JSON documents' })
  @IsOptional()
  @IsIn(FORMATS, { message: 'format must be markdown or document' })
  format?: (typeof FORMATS)[number];
}

export class CommentListQueryDto extends ListQuery {
  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'desc' })
  @IsOptional()
  @IsIn(['asc', 'desc'], { message: 'order must be asc or desc' })
  order?: 'asc' | 'desc';

  @ApiPropertyOptional({ enum: FORMATS })
  @IsOptional()
  @IsIn(FORMATS, { message: 'format must be markdown or document' })
  format?: (typeof FORMATS)[number];

  @ApiPropertyOptional({ enum: ['all', 'open', 'resolved'], default: 'all' })
  @IsOptional()
  @IsIn(['all', 'open', 'resolved'], { message: 'status must be all, open or resolved' })
  status?: 'all' | 'open' | 'resolved';

  @ApiPropertyOptional({ description: 'a page id: comments on that page only' })
  @IsOptional()
  @Matches(ID_SHAPES.entity, { message: 'targetPage must be a page id' })
  targetPage?: string;

  @ApiPropertyOptional({ description: 'user ids, comma-separated (at most 50): comments they posted', type: String })
  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' ? value.split(',').filter((id) => id !== '') : value))
  @IsArray({ message: 'authors must be user ids separated by commas' })
  @ArrayMaxSize(50)
  @Matches(ID_SHAPES.entity, { each: true, message: 'each of authors must be a user id' })
  authors?: string[];
}

export class ReplyListQuery extends ListQuery {
  @ApiPropertyOptional({ enum: FORMATS })
  @IsOptional()
  @IsIn(FORMATS, { message: 'format must be markdown or document' })
  format?: (typeof FORMATS)[number];
}

export class PostReplyBody {
  @ApiProperty({ description: BODY_DESCRIPTION })
  @IsObject({ message: 'body must be { markdown } or { document }' })
  body!: BodyInput;
}

const CELL_PART = /^[A-Za-z0-9_-]{1,64}$/;

/** A cell of a table block (the platform's TableCellTarget): kept with the comment and shown in its target. */
export class TableCellInput {
  @ApiProperty({ description: 'the record (row) of the cell' })
  @Matches(CELL_PART, { message: 'tableCell.record must be an id (letters, digits, _ and -, at most 64)' })
  record!: string;

  @ApiProperty({ description: 'the definition (column) of the cell' })
  @Matches(CELL_PART, { message: 'tableCell.definition must be an id (letters, digits, _ and -, at most 64)' })
  definition!: string;
}

export class PostCommentBody extends PostReplyBody {
  @ApiPropertyOptional({ description: 'the page commented on; without it the comment is on the space (or the change request) as a whole' })
  @IsOptional()
  @Matches(ID_SHAPES.entity, { message: 'page must be a page id' })
  page?: string;

  @ApiPropertyOptional({ description: 'the key of the block commented on, in that page (needs page)' })
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'node must be a block key' })
  node?: string;

  @ApiPropertyOptional({ type: TableCellInput, description: 'the table cell commented on' })
  @IsOptional()
  @IsObject({ message: 'tableCell must be { record, definition }' })
  @ValidateNested()
  @Type(() => TableCellInput)
  tableCell?: TableCellInput;
}

export class UpdateCommentBody {
  @ApiPropertyOptional({ description: `${BODY_DESCRIPTION}: the author only` })
  @ValidateIf(given)
  @IsObject({ message: 'body must be { markdown } or { document }' })
  body?: BodyInput;

  @ApiPropertyOptional({ description: 'true resolves the thread, false reopens it' })
  @ValidateIf(given)
  @IsBoolean()
  resolved?: boolean;

  @ApiPropertyOptional({
    type: [String],
    description: 'emoji the caller adds (at most 20), each as its character (👍) or its Unicode codepoints (1f44d)',
  })
  @ValidateIf(given)
  @IsArray()
  @ArrayMaxSize(20)
  @Matches(EMOJI, { each: true, message: 'each of addedReactions must be an emoji (👍 or its codepoints, 1f44d) or a :shortcode:' })
  addedReactions?: string[];

  @ApiPropertyOptional({ type: [String], description: 'emoji the caller takes back (at most 20), in either form' })
  @ValidateIf(given)
  @IsArray()
  @ArrayMaxSize(20)
  @Matches(EMOJI, { each: true, message: 'each of removedReactions must be an emoji (👍 or its codepoints, 1f44d) or a :shortcode:' })
  removedReactions?: string[];
}
