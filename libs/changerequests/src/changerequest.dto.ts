import { ApiPropertyOptional, ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { ID_SHAPES } from '#platform/ids';
import { ListQuery } from '#platform/http/list';
import { NotBlank } from '#platform/http/validation';
import {
  CHANGE_REQUEST_STATUSES,
  MAX_CHANGE_REQUEST_LINKS,
  REVIEW_STATUSES,
  type ChangeRequestStatus,
  type ReviewStatus,
} from './changerequest.events';
import { TemplateField, type TemplateRequest } from '#platform/http/template-field';

export const SUBJECT_MAX_LENGTH = 100;

export class CreateChangeRequestBody {
  @ApiPropertyOptional({ maxLength: SUBJECT_MAX_LENGTH, description: 'default: "Change request #<number>"' })
  @IsOptional()
  @IsString()
  @MaxLength(SUBJECT_MAX_LENGTH)
  @NotBlank()
  subject?: string;

  @ApiPropertyOptional({ description: 'the agent task this request implements' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'agentTaskId must be an id (letters, digits, _ and -, at most 64)' })
  agentTaskId?: string;

  @TemplateField()
  template?: TemplateRequest;
}

/** The platform's ContentRefURL: the only kind of reference a change request's link takes. */
export class LinkRefInput {
  @ApiProperty({ enum: ['url'] })
  @IsIn(['url'], { message: 'links[].ref.kind must be url' })
  kind!: 'url';

  @ApiProperty({ maxLength: 2048, description: 'an http or https URL' })
  @IsString()
  @MaxLength(2048)
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { message: 'links[].ref.url must be an http or https URL' },
  )
  url!: string;
}

/** The platform's ChangeRequestLinkInput. */
export class LinkInputDto {
  @ApiPropertyOptional({ description: 'the id of one of the request’s links, to keep or change it; leave it out to add a link' })
  @IsOptional()
  @Matches(ID_SHAPES.entity, { message: 'links[].id must be a link id' })
  id?: string;

  @ApiProperty({ type: LinkRefInput })
  @IsObject({ message: 'links[].ref must be { kind: "url", url }' })
  @ValidateNested()
  @Type(() => LinkRefInput)
  ref!: LinkRefInput;

  @ApiPropertyOptional({ maxLength: 128 })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  title?: string;
}

export class UpdateChangeRequestBody {
  @ApiPropertyOptional({ maxLength: SUBJECT_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(SUBJECT_MAX_LENGTH)
  @NotBlank()
  subject?: string;

  @ApiPropertyOptional({ enum: CHANGE_REQUEST_STATUSES })
  @IsOptional()
  @IsIn(CHANGE_REQUEST_STATUSES, { message: `status must be one of ${CHANGE_REQUEST_STATUSES.join(', ')}` })
  status?: ChangeRequestStatus;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'a JSON document ({ object: "document", data, nodes }), at most 64 KiB as markdown',
  })
  @IsOptional()
  @IsObject({ message: 'description must be a JSON document' })
  description?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: [LinkInputDto],
    maxItems: MAX_CHANGE_REQUEST_LINKS,
    description: 'every link of the request: a link sent with its id is kept (or changed), one without is added, the others are removed',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_CHANGE_REQUEST_LINKS)
  @ValidateNested({ each: true })
  @Type(() => LinkInputDto)
  links?: LinkInputDto[];
}

export const ORDER_BY = ['updatedAt', 'createdAt'] as const;

export class ChangeRequestListQuery extends ListQuery {
  @ApiPropertyOptional({ enum: CHANGE_REQUEST_STATUSES, default: 'open' })
  @IsOptional()
  @IsIn(CHANGE_REQUEST_STATUSES, { message: `status must be one of ${CHANGE_REQUEST_STATUSES.join(', ')}` })
  status?: ChangeRequestStatus;

  @ApiPropertyOptional({ description: 'a user id: requests this user created or edited' })
  @IsOptional()
  @Matches(ID_SHAPES.entity, { message: 'contributor must be a user id' })
  contributor?: string;

  @ApiPropertyOptional({ description: 'a user id: requests this user created' })
  @IsOptional()
  @Matches(ID_SHAPES.entity, { message: 'creator must be a user id' })
  creator?: string;

  @ApiPropertyOptional({ description: 'a user id: requests this user is asked to review' })
  @IsOptional()
  @Matches(ID_SHAPES.entity, { message: 'requestedReviewer must be a user id' })
  requestedReviewer?: string;

  @ApiPropertyOptional({
    description: 'a site topic id: requests linked to that topic (this service links none to a topic, so none match)',
  })
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'topic must be a topic id' })
  topic?: string;

  @ApiPropertyOptional({ enum: ORDER_BY, default: 'updatedAt', description: 'newest first by this date' })
  @IsOptional()
  @IsIn(ORDER_BY, { message: `orderBy must be one of ${ORDER_BY.join(', ')}` })
  orderBy?: (typeof ORDER_BY)[number];
}

export class RequestReviewersBody {
  @ApiProperty({ type: [String], description: 'user ids (1..20)' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(20)
  @Matches(ID_SHAPES.entity, { each: true, message: 'each of users must be a user id' })
  users!: string[];
}

export class ReviewBody {
  @ApiProperty({ enum: REVIEW_STATUSES })
  @IsIn(REVIEW_STATUSES, { message: `status must be one of ${REVIEW_STATUSES.join(', ')}` })
  status!: ReviewStatus;

  @ApiPropertyOptional({ maxLength: 10000 })
  @IsOptional()
  @IsString()
  @MaxLength(10000)
  body?: string;
}

const BOOLEAN = ['true', 'false'] as const;

export class PdfQuery {
  @ApiPropertyOptional({ enum: BOOLEAN, description: 'true: only the given page, without its subpages' })
  @IsOptional()
  @IsIn(BOOLEAN, { message: 'only must be true or false' })
  only?: (typeof BOOLEAN)[number];

  @ApiPropertyOptional({ description: 'a page id: the PDF of that page (and its subpages unless only=true)' })
  @IsOptional()
  @Matches(ID_SHAPES.entity, { message: 'page must be a page id' })
  page?: string;
}

export class PdfDownloadQuery extends PdfQuery {
  @Matches(ID_SHAPES.entity, { message: 'revision must be a revision id' })
  revision!: string;

  @Matches(/^\d{1,12}$/, { message: 'expires must be a time in seconds' })
  expires!: string;

  @Matches(/^[A-Za-z0-9_-]{1,128}$/, { message: 'signature is malformed' })
  signature!: string;
}
