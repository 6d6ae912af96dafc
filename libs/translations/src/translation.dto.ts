import { applyDecorators } from '@nestjs/common';
import { ArrayMaxSize, IsArray, IsString, Length, MaxLength, ValidateIf } from 'class-validator';
import { NotBlank } from '#platform/http/validation';
import { LANGUAGE_TAG_MAX_LENGTH } from './translation.languages';

const given = (_: object, value: unknown) => value !== undefined;

/** Most languages one translation settings object lists. */
export const MAX_LANGUAGES = 100;

/** `title`: 1..128 characters, not blank. */
const Title = () => applyDecorators(IsString(), Length(1, 128), NotBlank());

/** `languages`, when given: a list of at most 100 strings of at most 64 characters; the tags themselves are checked by the command handler. */
const Languages = () =>
  applyDecorators(
    ValidateIf(given),
    IsArray({ message: 'languages must be a list of BCP 47 language tags' }),
    ArrayMaxSize(MAX_LANGUAGES),
    IsString({ each: true, message: 'each of languages must be a BCP 47 language tag' }),
    MaxLength(LANGUAGE_TAG_MAX_LENGTH, { each: true }),
  );

/**
 * `POST /v1/orgs/{organizationId}/translations`: `title` as the interface has it, and `languages`,
 * the resource's list of BCP 47 tags (an extension of the body; none when absent). Each tag is
 * checked against the IANA registry and made canonical by the command handler (400 naming it).
 */
export class CreateTranslationSettingsBody {
  @Title() title!: string;
  @Languages() languages?: string[];
}

/**
 * `PUT …/translations/{translationSettingsId}`: `title` is required, as on creation; `languages`,
 * when given, replaces the list, and when absent leaves it as it is (a client that sends the
 * interface's body, the title alone, does not wipe the languages).
 */
export class UpdateTranslationSettingsBody {
  @Title() title!: string;
  @Languages() languages?: string[];
}
