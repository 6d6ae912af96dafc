import { applyDecorators } from '@nestjs/common';
import { Equals, IsIn, IsObject, IsOptional, IsString, IsUrl, Length, Matches, MaxLength, ValidateBy, ValidateIf } from 'class-validator';
import { ID_PATTERN } from '#platform/ids';
import { ListQuery } from '#platform/http/list';
import { NotBlank } from '#platform/http/validation';
import { IsMergeRules, type SpaceMergeRules } from '#platform/merge-rules';
import { ORGANIZATION_ROLES, type OrganizationRole } from '#platform/permissions';
import type { PositionRequest, SiblingKind, SiblingRef } from './ordering';
import {
  DEFAULT_LEVELS,
  EDIT_MODES,
  SPACE_LANGUAGES,
  SPACE_VISIBILITIES,
  type DefaultLevel,
  type EditMode,
  type SpaceLanguage,
  type SpaceVisibility,
} from './space.events';
import { TemplateField, type TemplateRequest } from '#platform/http/template-field';

/** Present and not null. */
const set = (_: object, value: unknown) => value !== undefined && value !== null;
const given = (_: object, value: unknown) => value !== undefined;

/** Titles of spaces and collections: 1..128 characters, not only white space. */
export const MAX_TITLE = 128;
export const MAX_DESCRIPTION = 2048;
/** The platform's `Emoji`: at most 50 characters; '' is no emoji. */
export const MAX_EMOJI = 50;
export const MAX_ICON_URL = 2048;

const Title = () =>
  applyDecorators(
    ValidateIf(given),
    IsString(),
    Length(1, MAX_TITLE, { message: `title must be 1 to ${MAX_TITLE} characters long` }),
    NotBlank(),
  );
/** A collection id, or null (the top level). */
const ParentId = () =>
  applyDecorators(ValidateIf(set), IsString(), Matches(ID_PATTERN, { message: 'parent must be a collection id or null' }));
/** A role, `inherit` (the platform's: none of its own, the parents' apply) or null. */
const DefaultLevelField = () =>
  applyDecorators(ValidateIf(set), IsIn(DEFAULT_LEVELS, { message: `defaultLevel must be one of ${DEFAULT_LEVELS.join(', ')} or null` }));
/** '' or an emoji of at most MAX_EMOJI characters; null clears it. */
const EmojiField = () =>
  applyDecorators(ValidateIf(set), IsString(), MaxLength(MAX_EMOJI, { message: `emoji must be at most ${MAX_EMOJI} characters long` }));
const LanguageField = () =>
  applyDecorators(ValidateIf(given), IsIn(SPACE_LANGUAGES, { message: `language must be one of ${SPACE_LANGUAGES.join(', ')}` }));
const EditModeField = () =>
  applyDecorators(ValidateIf(given), IsIn(EDIT_MODES, { message: `editMode must be one of ${EDIT_MODES.join(', ')}` }));

const POINTER_KINDS: readonly SiblingKind[] = ['space', 'collection'];

/**
 * What is wrong with a move `position`, or null: `{ before?, after? }`, each a pointer to a sibling,
 * `{ type: 'space', space: <id> }` or `{ type: 'collection', collection: <id> }` (the platform's
 * `ContentPosition`, the same for spaces and collections).
 */
function positionProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'position must be an object { before?, after? }';
  for (const key of Object.keys(value)) {
    if (key !== 'before' && key !== 'after') return `position.${key.slice(0, 32)} is not allowed`;
    const anchor = (value as Record<string, unknown>)[key];
    const shape = `position.${key} must be { type: 'space', space: <space id> } or { type: 'collection', collection: <collection id> }`;
    if (typeof anchor !== 'object' || anchor === null || Array.isArray(anchor)) return shape;
    const record = anchor as Record<string, unknown>;
    const type = record.type;
    if (typeof type !== 'string' || !(POINTER_KINDS as readonly string[]).includes(type)) return shape;
    const fields = Object.keys(anchor);
    if (fields.length !== 2 || !fields.includes(type)) return shape;
    if (typeof record[type] !== 'string' || !ID_PATTERN.test(record[type] as string)) return shape;
  }
  return null;
}

function IsPosition(): PropertyDecorator {
  return ValidateBy({
    name: 'isPosition',
    validator: {
      validate: (value: unknown) => positionProblem(value) === null,
      defaultMessage: (args) => positionProblem(args?.value) ?? 'position is invalid',
    },
  });
}

type PositionBody = Partial<Record<'before' | 'after', { type: SiblingKind } & Partial<Record<SiblingKind, string>>>>;

/** The anchors of a validated position body. */
export function positionRequest(position: PositionBody | undefined): PositionRequest | undefined {
  if (!position) return undefined;
  const ref = (anchor: PositionBody['before']): SiblingRef | undefined =>
    anchor ? { kind: anchor.type, id: anchor[anchor.type] as string } : undefined;
  return { before: ref(position.before), after: ref(position.after) };
}

export class CreateSpaceBody {
  @Title()
  title?: string;

  @EmojiField()
  emoji?: string | null;

  @ParentId()
  parent?: string | null;

  @LanguageField()
  language?: SpaceLanguage;

  @EditModeField()
  editMode?: EditMode;

  /** The platform's "create a completely empty space": every new space of this service is. */
  @ValidateIf(given)
  @Equals(true, { message: 'empty must be true' })
  empty?: true;

  /** The platform's space templates: accepted and not acted on; the space starts empty. */
  @TemplateField()
  template?: TemplateRequest;

  /** The platform's computed content sources: accepted and not acted on; the space starts empty. */
  @ValidateIf(given)
  @IsObject({ message: 'computedSource must be an object' })
  computedSource?: object;
}

export class UpdateSpaceBody {
  @EditModeField()
  editMode?: EditMode;

  @Title()
  title?: string;

  @DefaultLevelField()
  defaultLevel?: DefaultLevel;

  /** Setting an emoji clears the icon; null (or '') clears the emoji. */
  @EmojiField()
  emoji?: string | null;

  /** The URL of an image shown instead of an emoji (setting it clears the emoji); null clears it. */
  @ValidateIf(set)
  @IsString({ message: 'icon must be an http(s) URL or null' })
  @MaxLength(MAX_ICON_URL, { message: `icon must be at most ${MAX_ICON_URL} characters long` })
  @IsUrl({ require_protocol: true, protocols: ['http', 'https'] }, { message: 'icon must be an http(s) URL or null' })
  icon?: string | null;

  @LanguageField()
  language?: SpaceLanguage;

  @ValidateIf(given)
  @IsMergeRules({ inherit: true })
  mergeRules?: SpaceMergeRules;

  /** An extension: how a space's visibility is set. */
  @ValidateIf(given)
  @IsIn(SPACE_VISIBILITIES, { message: `visibility must be one of ${SPACE_VISIBILITIES.join(', ')}` })
  visibility?: SpaceVisibility;
}

/** `POST /spaces/{spaceId}/move`; the collection move takes the same body (declared apart: the OpenAPI document describes each class's own members). */
export class MoveSpaceBody {
  @ParentId()
  parent?: string | null;

  @ValidateIf(given)
  @IsPosition()
  position?: PositionBody;
}

export class MoveCollectionBody {
  @ParentId()
  parent?: string | null;

  @ValidateIf(given)
  @IsPosition()
  position?: PositionBody;
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
