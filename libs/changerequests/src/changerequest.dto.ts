import { ApiPropertyOptional, ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { ID_SHAPES } from '../../platform/src/ids';
import { ListQuery } from '../../platform/src/http/list';
import { NotBlank } from '../../platform/src/http/validation';
import { CHANGE_REQUEST_STATUSES, REVIEW_STATUSES, type ChangeRequestStatus, type ReviewStatus } from './changerequest.events';

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
}

export class ChangeRequestListQuery extends ListQuery {
  @ApiPropertyOptional({ enum: CHANGE_REQUEST_STATUSES, default: 'open' })
  @IsOptional()
  @IsIn(CHANGE_REQUEST_STATUSES, { message: `status must be one of ${CHANGE_REQUEST_STATUSES.join(', ')}` })
  status?: ChangeRequestStatus;

  @ApiPropertyOptional({ description: 'a user id: requests this user created or edited' })
  @IsOptional()
  @Matches(ID_SHAPES.entity, { message: 'contributor must be a user id' })
  contributor?: string;
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
