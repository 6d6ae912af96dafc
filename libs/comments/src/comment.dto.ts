import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsObject, IsOptional, Matches, ValidateIf } from 'class-validator';
import { ID_SHAPES } from '../../platform/src/ids';
import { ListQuery } from '../../platform/src/http/list';
import type { BodyInput } from './comment.commands';

const FORMATS = ['markdown', 'document'] as const;
/** An emoji (with its modifiers and joiners) or a `:shortcode:`. */
const EMOJI = /^(?:[\p{Extended_Pictographic}\p{Emoji_Component}\u200d\ufe0f]{1,16}|:[a-z0-9_+-]{1,30}:)$/u;
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
  @ApiProperty({ description: '`{ markdown }` (at most 16 KiB; `@<userId>` mentions a user) or a JSON document' })
  @IsObject({ message: 'body must be { markdown } or a document' })
  body!: BodyInput;
}

export class PostCommentBody extends PostReplyBody {
  @ApiProperty({ description: 'the page commented on' })
  @Matches(ID_SHAPES.entity, { message: 'page must be a page id' })
  page!: string;

  @ApiPropertyOptional({ description: 'the key of the block commented on, in that page' })
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'node must be a block key' })
  node?: string;
}

export class UpdateCommentBody {
  @ApiPropertyOptional({ description: '`{ markdown }` or a JSON document: the author only' })
  @ValidateIf(given)
  @IsObject({ message: 'body must be { markdown } or a document' })
  body?: BodyInput;

  @ApiPropertyOptional({ description: 'true resolves the thread, false reopens it' })
  @ValidateIf(given)
  @IsBoolean()
  resolved?: boolean;

  @ApiPropertyOptional({ type: [String], description: 'emoji the caller adds (at most 20)' })
  @ValidateIf(given)
  @IsArray()
  @ArrayMaxSize(20)
  @Matches(EMOJI, { each: true, message: 'each of addedReactions must be an emoji or a :shortcode:' })
  addedReactions?: string[];

  @ApiPropertyOptional({ type: [String], description: 'emoji the caller takes back (at most 20)' })
  @ValidateIf(given)
  @IsArray()
  @ArrayMaxSize(20)
  @Matches(EMOJI, { each: true, message: 'each of removedReactions must be an emoji or a :shortcode:' })
  removedReactions?: string[];
}
