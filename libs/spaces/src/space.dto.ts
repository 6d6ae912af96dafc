import { applyDecorators } from '@nestjs/common';
import { IsIn, IsOptional, IsString, Length, Matches, MaxLength, ValidateBy, ValidateIf } from 'class-validator';
import { ID_PATTERN } from '../../platform/src/ids';
import { ListQuery } from '../../platform/src/http/list';
import { NotBlank } from '../../platform/src/http/validation';
import { ORGANIZATION_ROLES, type OrganizationRole } from '../../platform/src/permissions';
import type { PositionRequest } from './ordering';
import { EDIT_MODES, SPACE_VISIBILITIES, type DefaultLevel, type EditMode, type SpaceVisibility } from './space.events';

/** Present and not null. */
const set = (_: object, value: unknown) => value !== undefined && value !== null;
const given = (_: object, value: unknown) => value !== undefined;

/** Titles of spaces and collections: 1..128 characters, not only white space. */
export const MAX_TITLE = 128;
export const MAX_DESCRIPTION = 2048;
export const MAX_EMOJI = 32;

const Title = () =>
  applyDecorators(ValidateIf(given), IsString(), Length(1, MAX_TITLE, { message: `title must be 1 to ${MAX_TITLE} characters long` }), NotBlank());
/** A collection id, or null (the top level). */
const ParentId = () => applyDecorators(ValidateIf(set), IsString(), Matches(ID_PATTERN, { message: 'parent must be a collection id or null' }));
const DefaultLevelField = () => applyDecorators(ValidateIf(set), IsIn(ORGANIZATION_ROLES, { message: `defaultLevel must be one of ${ORGANIZATION_ROLES.join(', ')} or null` }));

/** What is wrong with a move `position`, or null. `{ before?: { type, <type>: id }, after?: { type, <type>: id } }`. */
function positionProblem(value: unknown, type: 'space' | 'collection'): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'position must be an object { before?, after? }';
  for (const key of Object.keys(value)) {
    if (key !== 'before' && key !== 'after') return `position.${key.slice(0, 32)} is not allowed`;
    const anchor = (value as Record<string, unknown>)[key];
    const shape = `position.${key} must be { type: '${type}', ${type}: <${type} id> }`;
    if (typeof anchor !== 'object' || anchor === null || Array.isArray(anchor)) return shape;
    const fields = Object.keys(anchor);
    if (fields.length !== 2 || !fields.includes('type') || !fields.includes(type)) return shape;
    const record = anchor as Record<string, unknown>;
    if (record.type !== type || typeof record[type] !== 'string' || !ID_PATTERN.test(record[type] as string)) return shape;
  }
  return null;
}

function IsPosition(type: 'space' | 'collection'): PropertyDecorator {
  return ValidateBy({
    name: 'isPosition',
    validator: {
      validate: (value: unknown) => positionProblem(value, type) === null,
      defaultMessage: (args) => positionProblem(args?.value, type) ?? 'position is invalid',
    },
  });
}

/** The anchors of a validated position body. */
export function positionRequest(position: Record<string, Record<string, string>> | undefined, type: 'space' | 'collection'): PositionRequest | undefined {
  if (!position) return undefined;
  return { before: position.before?.[type], after: position.after?.[type] };
}

export class CreateSpaceBody {
  @Title()
  title?: string;

  @ValidateIf(set)
  @IsString()
  @Length(1, MAX_EMOJI, { message: `emoji must be 1 to ${MAX_EMOJI} characters long` })
  emoji?: string | null;

  @ParentId()
  parent?: string | null;
}

export class UpdateSpaceBody {
  @ValidateIf(given)
  @IsIn(EDIT_MODES, { message: `editMode must be one of ${EDIT_MODES.join(', ')}` })
  editMode?: EditMode;

  @Title()
  title?: string;

  @DefaultLevelField()
  defaultLevel?: DefaultLevel;

  @ValidateIf(set)
  @IsString()
  @Length(1, MAX_EMOJI, { message: `emoji must be 1 to ${MAX_EMOJI} characters long` })
  emoji?: string | null;

  /** An extension: how a space's visibility is set. */
  @ValidateIf(given)
  @IsIn(SPACE_VISIBILITIES, { message: `visibility must be one of ${SPACE_VISIBILITIES.join(', ')}` })
  visibility?: SpaceVisibility;
}

export class MoveSpaceBody {
  @ParentId()
  parent?: string | null;

  @ValidateIf(given)
  @IsPosition('space')
  position?: Record<string, Record<string, string>>;
}

export class MoveCollectionBody {
  @ParentId()
  parent?: string | null;

  @ValidateIf(given)
  @IsPosition('collection')
  position?: Record<string, Record<string, string>>;
}

export class TransferBody {
  @IsString({ message: 'organization must be an organization id' })
  @Matches(ID_PATTERN, { message: 'organization must be an organization id' })
  organization!: string;
}

/** `PUT /spaces/{spaceId}/teams/{teamId}` (extension): the role the space grants to the team's members. */
export class SetSpaceTeamBody {
  @IsIn(ORGANIZATION_ROLES, { message: `role must be one of ${ORGANIZATION_ROLES.join(', ')}` })
  role!: Exclude<OrganizationRole, null>;
}

export class GetSpaceQuery {
  @IsOptional()
  @IsString()
  @MaxLength(128)
  shareKey?: string;
}

export class CreateCollectionBody {
  @Title()
  title?: string;

  @ParentId()
  parent?: string | null;
}

export class UpdateCollectionBody {
  @Title()
  title?: string;

  @ValidateIf(set)
  @IsString()
  @MaxLength(MAX_DESCRIPTION, { message: `description must be at most ${MAX_DESCRIPTION} characters long` })
  description?: string | null;

  @DefaultLevelField()
  defaultLevel?: DefaultLevel;
}

export class CollectionListQuery extends ListQuery {
  /** True (default) lists nested collections too; false only top-level ones. */
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'nested must be true or false' })
  nested?: 'true' | 'false';
}
