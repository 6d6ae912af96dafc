import { applyDecorators } from '@nestjs/common';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateBy,
  ValidateIf,
} from 'class-validator';
import { ID_PATTERN } from '#platform/ids';
import { ListQuery } from '#platform/http/list';
import { NotBlank } from '#platform/http/validation';
import { TEAM_ROLES, type TeamRole } from '#platform/permissions';

const given = (_: object, value: unknown) => value !== undefined;

/** Most users one request may name in each of `members`, `add`, `remove` and `memberships`. */
export const MAX_TEAM_ENTRIES = 1000;
/** An entry of a member update: a user id or an e-mail address (254 characters at most). */
const MAX_ENTRY_LENGTH = 254;
const ROLE_MESSAGE = `must be one of ${TEAM_ROLES.join(', ')}`;

export class TeamListQuery extends ListQuery {
  /** A member id: only the teams that member can manage. */
  @IsOptional()
  @IsString()
  @Matches(ID_PATTERN, { message: 'owner must be a member id' })
  owner?: string;

  /** Case-insensitive "contains" on the title. */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  title?: string;
}

export class MemberTeamsQuery extends ListQuery {
  @IsOptional()
  @IsString()
  @MaxLength(64)
  title?: string;
}

/** A title of 1..64 characters, not only white space. */
const TeamTitle = () => applyDecorators(IsString(), Length(1, 64, { message: 'title must be 1 to 64 characters long' }), NotBlank());

export class CreateTeamBody {
  @TeamTitle()
  title!: string;

  /** Member ids of the organization; they join as `member` (the creator joins as `owner`). */
  @ValidateIf(given)
  @IsArray()
  @ArrayMaxSize(MAX_TEAM_ENTRIES)
  @IsString({ each: true })
  @Matches(ID_PATTERN, { each: true, message: 'each of members must be a member id' })
  members?: string[];
}

export class RenameTeamBody {
  @TeamTitle()
  title!: string;
}

export class SetTeamMemberBody {
  /** Absent: joins as member, or keeps the role they have. */
  @ValidateIf(given)
  @IsIn(TEAM_ROLES, { message: `role ${ROLE_MESSAGE}` })
  role?: TeamRole;
}

/** What is wrong with a `memberships` map, or null. */
function membershipsProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'memberships must be an object mapping users to { role }';
  const entries = Object.entries(value);
  if (entries.length > MAX_TEAM_ENTRIES) return `memberships must name at most ${MAX_TEAM_ENTRIES} users`;
  for (const [entry, membership] of entries) {
    const at = `memberships.${entry.slice(0, 64)}`;
    if (entry.length === 0 || entry.length > MAX_ENTRY_LENGTH)
      return `memberships keys must be user ids or e-mail addresses of 1 to ${MAX_ENTRY_LENGTH} characters`;
    if (typeof membership !== 'object' || membership === null || Array.isArray(membership)) return `${at} must be an object { role }`;
    const unknown = Object.keys(membership).filter((key) => key !== 'role');
    if (unknown.length > 0) return `${at}.${unknown[0]} is not allowed`;
    const role = (membership as { role?: unknown }).role;
    if (typeof role !== 'string' || !(TEAM_ROLES as readonly string[]).includes(role)) return `${at}.role ${ROLE_MESSAGE}`;
  }
  return null;
}

function IsMembershipMap(): PropertyDecorator {
  return ValidateBy({
    name: 'isMembershipMap',
    validator: {
      validate: (value: unknown) => membershipsProblem(value) === null,
      defaultMessage: (args) => membershipsProblem(args?.value) ?? 'memberships is invalid',
    },
  });
}

/** `PUT /teams/{teamId}/members`: entries are user ids or e-mail addresses. */
export class UpdateTeamMembersBody {
  @ValidateIf(given)
  @IsArray()
  @ArrayMaxSize(MAX_TEAM_ENTRIES)
  @IsString({ each: true })
  @Length(1, MAX_ENTRY_LENGTH, {
    each: true,
    message: `each of add must be a user id or an e-mail address of 1 to ${MAX_ENTRY_LENGTH} characters`,
  })
  add?: string[];

  @ValidateIf(given)
  @IsArray()
  @ArrayMaxSize(MAX_TEAM_ENTRIES)
  @IsString({ each: true })
  @Length(1, MAX_ENTRY_LENGTH, {
    each: true,
    message: `each of remove must be a user id or an e-mail address of 1 to ${MAX_ENTRY_LENGTH} characters`,
  })
  remove?: string[];

  @ValidateIf(given)
  @IsObject()
  @IsMembershipMap()
  memberships?: Record<string, { role: TeamRole }>;
}
