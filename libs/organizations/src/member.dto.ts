import { plainToInstance, Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { ListQuery } from '#platform/http/list';
import { ORGANIZATION_ROLES, type OrganizationRole } from '#platform/permissions';

const ROLE_MESSAGE = `role must be one of ${ORGANIZATION_ROLES.join(', ')} or null`;
const given = (_: object, value: unknown) => value !== undefined;
const givenAndNotNull = (_: object, value: unknown) => value !== undefined && value !== null;

export class MemberListQuery extends ListQuery {
  @IsOptional()
  @IsIn(['asc', 'desc'])
  order?: 'asc' | 'desc';

  /** A role, or `guest` for members without one. */
  @IsOptional()
  @IsIn([...ORGANIZATION_ROLES, 'guest'], { message: `role must be one of ${ORGANIZATION_ROLES.join(', ')}, guest` })
  role?: OrganizationRole | 'guest';

  @IsOptional()
  @IsString()
  @MaxLength(256)
  search?: string;

  @IsOptional()
  @IsIn(['joinedAt', 'lastSeenAt', 'name'])
  sort?: 'joinedAt' | 'lastSeenAt' | 'name';
}

export class MemberSpacesQuery extends ListQuery {
  @IsOptional()
  @IsIn(['asc', 'desc'])
  order?: 'asc' | 'desc';
}

export class UpdateMemberBody {
  /** A role, or null for guest. Required. */
  @ValidateIf((_: object, value: unknown) => value !== null)
  @IsIn(ORGANIZATION_ROLES, { message: ROLE_MESSAGE })
  role!: OrganizationRole;
}

export class InvitationBody {
  @IsEmail({}, { message: 'emails[].email must be an e-mail address' })
  @MaxLength(254)
  email!: string;

  @ValidateIf(givenAndNotNull)
  @IsIn(ORGANIZATION_ROLES, { message: ROLE_MESSAGE })
  role?: OrganizationRole;
}

export class InviteBody {
  /** E-mail addresses, or `{ email, role }` objects; plain strings become `{ email }`. */
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @Transform(({ value }) =>
    Array.isArray(value)
      ? value.map((entry: unknown) => plainToInstance(InvitationBody, typeof entry === 'string' ? { email: entry } : entry))
      : value,
  )
  @ValidateNested({ each: true })
  emails!: InvitationBody[];

  @ValidateIf(givenAndNotNull)
  @IsIn(ORGANIZATION_ROLES, { message: ROLE_MESSAGE })
  role?: OrganizationRole;

  @ValidateIf(given)
  @IsBoolean()
  sso?: boolean;
}

export class LinkInviteBody {
  @ValidateIf(givenAndNotNull)
  @IsIn(ORGANIZATION_ROLES, { message: ROLE_MESSAGE })
  role?: OrganizationRole;
}
