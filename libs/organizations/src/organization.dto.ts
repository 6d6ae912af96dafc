import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  Equals,
  IsArray,
  IsBoolean,
  IsFQDN,
  IsIn,
  IsObject,
  IsString,
  IsUrl,
  Length,
  Matches,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { ORGANIZATION_ROLES, type OrganizationRole } from '#platform/permissions';
import { NotBlank } from '#platform/http/validation';
import { IsMergeRules, type MergeRules } from '#platform/merge-rules';

/** Present and not null: the member is being set. Absent: unchanged. Null passes only where a member is nullable. */
const given = (_: object, value: unknown) => value !== undefined;
const givenAndNotNull = (_: object, value: unknown) => value !== undefined && value !== null;

export class CreateOrganizationBody {
  @IsString()
  @Length(2, 255)
  @NotBlank()
  title!: string;

  @ValidateIf(given)
  @IsArray()
  @ArrayMaxSize(100)
  @IsFQDN({}, { each: true, message: 'each of emailDomains must be a domain name' })
  emailDomains?: string[];
}

export class DefaultContentBody {
  @Equals('site', { message: "defaultContent.type must be 'site'" })
  type!: 'site';

  @IsString()
  @Length(1, 64)
  site!: string;
}

export class UpdateOrganizationBody {
  @ValidateIf(given)
  @IsString()
  @Length(2, 255)
  @NotBlank()
  title?: string;

  @ValidateIf(given)
  @IsArray()
  @ArrayMaxSize(100)
  @IsFQDN({}, { each: true, message: 'each of emailDomains must be a domain name' })
  emailDomains?: string[];

  /** The organization's default hostname for public content; null removes it. */
  @ValidateIf(givenAndNotNull)
  @IsString()
  @Length(3, 32)
  @Matches(/^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$/, { message: 'hostname must be lower-case letters, digits and inner hyphens' })
  hostname?: string | null;

  @ValidateIf(givenAndNotNull)
  @IsIn(ORGANIZATION_ROLES, { message: `defaultRole must be one of ${ORGANIZATION_ROLES.join(', ')} or null` })
  defaultRole?: OrganizationRole;

  @ValidateIf(givenAndNotNull)
  @IsObject()
  @ValidateNested()
  @Type(() => DefaultContentBody)
  defaultContent?: DefaultContentBody | null;

  @ValidateIf(givenAndNotNull)
  @IsUrl({ require_protocol: true, protocols: ['http', 'https'] }, { message: 'logo must be an http(s) URL' })
  @MaxLength(2048)
  logo?: string | null;

  @ValidateIf(given)
  @IsBoolean()
  sso?: boolean;

  @ValidateIf(given)
  @IsBoolean()
  ai?: boolean;

  @ValidateIf(given)
  @IsBoolean()
  inviteLinks?: boolean;

  /** Extension: change requests merge only with an approval of their latest revision (the require_at_least_one_approved_review rule of mergeRules). */
  @ValidateIf(given)
  @IsBoolean()
  changeRequestsRequireApproval?: boolean;

  /** The platform's merge rules (`{ type: 'none' }` or `{ type: 'rules', rules }`). */
  @ValidateIf(given)
  @IsMergeRules({ inherit: false })
  mergeRules?: MergeRules;
}
