import type { Type } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { ID_SHAPES } from '#platform/ids';
import { ListQuery } from '#platform/http/list';
import { NotBlank } from '#platform/http/validation';
import { IsContentSecurityPolicy, type ContentSecurityPolicy } from './integration.content-security-policy';
import {
  INTEGRATION_CATEGORIES,
  INTEGRATION_RUNTIMES,
  INTEGRATION_SCOPES,
  INTEGRATION_TARGETS,
  INTEGRATION_VISIBILITIES,
  type InstallationPlace,
  type IntegrationDefinition,
  type IntegrationRuntimeVersion,
  type IntegrationTarget,
  type IntegrationVisibility,
} from './integration.events';

const given = (_: object, value: unknown) => value !== undefined;
const BOOLEAN = ['true', 'false'] as const;
const asBoolean = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const SCOPE_MESSAGE = `each of scopes must be one of ${INTEGRATION_SCOPES.join(', ')}`;
/** An icon or preview image: at most 512 KiB, as base64. */
export const MAX_IMAGE_BASE64 = 700_000;
/** A script's source, in characters. */
export const MAX_SCRIPT_LENGTH = 1_000_000;

/** The members of the platform's PublishIntegration, all optional (members left out keep their published value); limits and values the platform's. */
export class PublishIntegrationBody {
  @ValidateIf(given)
  @IsIn(INTEGRATION_RUNTIMES, { message: `runtime must be one of ${INTEGRATION_RUNTIMES.join(', ')}` })
  runtime?: IntegrationRuntimeVersion;
  @ValidateIf(given) @IsString() @MaxLength(MAX_IMAGE_BASE64) @Matches(BASE64, { message: 'icon must be base64' }) icon?: string;
  @ValidateIf(given) @IsString() @NotBlank() @Length(2, 30, { message: 'title must be 2 to 30 characters' }) title?: string;
  @ValidateIf(given) @IsString() @MaxLength(100) description?: string;
  @ValidateIf(given) @IsString() @MaxLength(2048) summary?: string;
  @ValidateIf(given)
  @IsArray()
  @ArrayMaxSize(3)
  @MaxLength(MAX_IMAGE_BASE64, { each: true })
  @Matches(BASE64, { each: true, message: 'each of previewImages must be base64' })
  previewImages?: string[];
  @ValidateIf(given)
  @IsIn(INTEGRATION_VISIBILITIES, { message: `visibility must be one of ${INTEGRATION_VISIBILITIES.join(', ')}` })
  visibility?: IntegrationVisibility;
  @ValidateIf(given)
  @IsIn(INTEGRATION_TARGETS, { message: `target must be one of ${INTEGRATION_TARGETS.join(', ')}` })
  target?: IntegrationTarget;
  @ValidateIf(given)
  @IsArray()
  @ArrayMaxSize(INTEGRATION_SCOPES.length)
  @IsIn(INTEGRATION_SCOPES, { each: true, message: SCOPE_MESSAGE })
  scopes?: string[];
  @ValidateIf(given)
  @IsArray()
  @ArrayMaxSize(INTEGRATION_CATEGORIES.length)
  @IsIn(INTEGRATION_CATEGORIES, { each: true, message: `each of categories must be one of ${INTEGRATION_CATEGORIES.join(', ')}` })
  categories?: string[];
  @ValidateIf(given) @IsArray() @ArrayMaxSize(50) @IsObject({ each: true }) blocks?: IntegrationDefinition['blocks'];
  @ValidateIf(given) @IsArray() @ArrayMaxSize(50) @IsObject({ each: true }) contentSources?: IntegrationDefinition['contentSources'];
  @ValidateIf(given) @IsArray() @ArrayMaxSize(5) @IsObject({ each: true }) externalLinks?: IntegrationDefinition['externalLinks'];
  @ValidateIf(given) @IsObject() configurations?: IntegrationDefinition['configurations'];
  @ValidateIf(given) @IsString() @MaxLength(MAX_SCRIPT_LENGTH) script?: string;
  @ValidateIf(given) @Matches(ID_SHAPES.entity, { message: 'organization must be an organization id' }) organization?: string;
  @ValidateIf(given) @IsObject() secrets?: Record<string, string>;
  @ValidateIf(given) @IsContentSecurityPolicy() contentSecurityPolicy?: ContentSecurityPolicy;
}

export class IntegrationListQuery extends ListQuery {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100) search?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(50) category?: string;
  @ApiPropertyOptional()
  @IsOptional()
  @Matches(/^[a-zA-Z0-9-_.]+$/, { message: 'blockDomain must be a domain' })
  @MaxLength(253)
  blockDomain?: string;
  @ApiPropertyOptional({ enum: BOOLEAN })
  @IsOptional()
  @Transform(asBoolean)
  @IsBoolean({ message: 'blocks must be true or false' })
  blocks?: boolean;
  @ApiPropertyOptional({ enum: BOOLEAN })
  @IsOptional()
  @Transform(asBoolean)
  @IsBoolean({ message: 'contentSources must be true or false' })
  contentSources?: boolean;
  @ApiPropertyOptional() @IsOptional() @Matches(ID_SHAPES.entity, { message: 'owner must be an organization id' }) owner?: string;
  @ApiPropertyOptional({ enum: INTEGRATION_SCOPES })
  @IsOptional()
  @IsIn(INTEGRATION_SCOPES, { message: `scope must be one of ${INTEGRATION_SCOPES.join(', ')}` })
  scope?: string;
  @ApiPropertyOptional({ enum: INTEGRATION_TARGETS })
  @IsOptional()
  @IsIn(INTEGRATION_TARGETS, { message: `target must be one of ${INTEGRATION_TARGETS.join(', ')}` })
  target?: string;
}

export class InstallationListQuery extends ListQuery {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(200) externalId?: string;
}

export class PlaceInstallationListQuery extends InstallationListQuery {
  @ApiPropertyOptional({ enum: BOOLEAN, description: 'true: Space (or Site) objects instead of ids' })
  @IsOptional()
  @Transform(asBoolean)
  @IsBoolean({ message: 'extended must be true or false' })
  extended?: boolean;
}

export class InstallBody {
  @Matches(ID_SHAPES.entity, { message: 'organization must be an organization id' }) organization!: string;
}

export class UpdateInstallationBody {
  @ValidateIf(given) @IsIn(['active', 'paused'], { message: 'status must be active or paused' }) status?: 'active' | 'paused';
  @ValidateIf(given) @IsObject() configuration?: Record<string, unknown>;
  @ValidateIf(given) @IsIn(['all', 'selected'], { message: 'space_selection must be all or selected' }) space_selection?:
    'all' | 'selected';
  @ValidateIf(given) @IsIn(['all', 'selected'], { message: 'site_selection must be all or selected' }) site_selection?: 'all' | 'selected';
  /** Extension: the scopes the organization accepts, among those the integration asks for (its `scopes`); they replace those accepted before. */
  @ValidateIf(given)
  @IsArray()
  @ArrayMaxSize(INTEGRATION_SCOPES.length)
  @IsIn(INTEGRATION_SCOPES, { each: true, message: SCOPE_MESSAGE })
  scopes?: string[];
}

/** An installation's settings on a space or a site. */
export class PlaceInstallationBody {
  @ValidateIf(given) @IsIn(['active', 'paused'], { message: 'status must be active or paused' }) status?: 'active' | 'paused';
  @ValidateIf(given) @IsObject() configuration?: Record<string, unknown>;
}

/**
 * Makes `body` (a subclass of PlaceInstallationBody made for one place's routes) the body that
 * installs on that place: the place's id as `space` or `site`, and the class named
 * `AddSpaceInstallationBody` or `AddSiteInstallationBody` in the OpenAPI document.
 */
export function addPlaceInstallationBody<T extends Type<PlaceInstallationBody>>(body: T, place: InstallationPlace): T {
  Object.defineProperty(body, 'name', { value: `Add${place[0].toUpperCase()}${place.slice(1)}InstallationBody` });
  Matches(ID_SHAPES.entity, { message: `${place} must be a ${place} id` })(body.prototype, place);
  return body;
}

export class DevModeBody {
  @IsString() @MaxLength(2048) @Matches(/^https?:\/\//i, { message: 'tunnelUrl must be an http or https URL' }) tunnelUrl!: string;
  @ValidateIf(given) @IsBoolean() all?: boolean;
}

export class RenderBody {
  @IsString() @Matches(/^[A-Za-z0-9_.-]{1,100}$/, { message: 'componentId must be a component id' }) componentId!: string;
  @ValidateIf(given) @IsObject() props?: Record<string, unknown>;
  @ValidateIf(given) @IsObject() state?: Record<string, unknown>;
  @ValidateIf(given) @IsObject() context?: Record<string, unknown>;
  @ValidateIf(given) action?: unknown;
}

export class RenderQuery {
  @IsString() @MaxLength(200_000) request!: string;
}
