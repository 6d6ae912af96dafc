import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Matches,
  MaxLength,
  ValidateBy,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { ID_SHAPES } from '#platform/ids';
import { ListQuery } from '#platform/http/list';
import { NotBlank } from '#platform/http/validation';
import { SITE_HOSTNAME } from './site.hostnames';
import {
  NEW_SPACE,
  SITE_DEFAULT_LEVELS,
  SITE_TYPES,
  SITE_VISIBILITIES,
  type SiteDefaultLevel,
  type SiteType,
  type SiteVisibility,
} from './site.events';
import { TemplateField, type TemplateRequest } from '#platform/http/template-field';

const given = (_: object, value: unknown) => value !== undefined;
const givenAndNotNull = (_: object, value: unknown) => value !== undefined && value !== null;
/** Required, and null is a value of its own (a space id, or null for a new space). */
const notNull = (_: object, value: unknown) => value !== null;
/** The longest id read from a body: an id of another shape names nothing (404). */
const MAX_ID = 128;
/** A query parameter given once is a string, given again a list: always a list here. */
const asList = ({ value }: { value: unknown }) => (value === undefined ? undefined : Array.isArray(value) ? value : [value]);
const asBoolean = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);
const PATH = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const PROXY = /^([\w-]+\.)*[\w-]+\.[a-zA-Z]{2,}(\/[\w-]+)+$/;
/** Not an IP literal (a v6 address has `:`, one of v4 in any notation ends in a number label): the same rule as isIpLiteral, as a pattern the OpenAPI document can show. */
const NOT_AN_ADDRESS = /^(?![^:]*:)(?!\[)(?!(?:.*\.)?(?:\d+|0x[0-9a-f]*)\.?$)/i;
const SHARE_KEY = /^[A-Za-z0-9_-]{1,128}$/;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const HTTP_URL = { require_protocol: true, protocols: ['http', 'https'], require_tld: false };

/** `spaces` of a new site: a list of up to 50 space ids (an id naming no space of the organization is 404), or `'new'` for a new space named after the site. */
function IsSpacesValue(): PropertyDecorator {
  return ValidateBy({
    name: 'isSpacesValue',
    validator: {
      validate: (value: unknown) =>
        value === NEW_SPACE ||
        (Array.isArray(value) &&
          value.length <= 50 &&
          value.every((id) => typeof id === 'string' && id.length >= 1 && id.length <= MAX_ID)),
      defaultMessage: () => `spaces must be a list of at most 50 space ids, or '${NEW_SPACE}' for a new space`,
    },
  });
}

export class SiteListQuery extends ListQuery {
  @ApiPropertyOptional({ description: 'a space id: sites showing that space' })
  @IsOptional()
  @Matches(ID_SHAPES.entity, { message: 'space must be a space id' })
  space?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(128) title?: string;
  @ApiPropertyOptional({ enum: ['true', 'false'] })
  @IsOptional()
  @Transform(asBoolean)
  @IsBoolean({ message: 'published must be true or false' })
  published?: boolean;
  /** Sites of any of these types (`?type=basic&type=premium`). */
  @ApiPropertyOptional({ description: 'site types: sites of any of them', type: [String], enum: SITE_TYPES })
  @IsOptional()
  @Transform(asList)
  @IsArray()
  @ArrayMaxSize(SITE_TYPES.length * 2)
  @IsIn(SITE_TYPES, { each: true, message: `type must be one of ${SITE_TYPES.join(', ')}` })
  type?: SiteType[];
}

export class CreateSiteBody {
  @ValidateIf(given) @IsIn(SITE_TYPES, { message: `type must be one of ${SITE_TYPES.join(', ')}` }) type?: SiteType;
  @ValidateIf(given) @IsString() @Length(2, 128) @NotBlank() title?: string;
  @ValidateIf(given)
  @IsIn(SITE_VISIBILITIES, { message: `visibility must be one of ${SITE_VISIBILITIES.join(', ')}` })
  visibility?: SiteVisibility;
  @ValidateIf(given) @IsSpacesValue() spaces?: string[] | typeof NEW_SPACE;
}

class EnabledBody {
  @IsBoolean() enabled!: boolean;
}

export class UpdateSiteBody {
  @ValidateIf(given) @IsString() @Length(2, 128) @NotBlank() title?: string;
  @ValidateIf(given)
  @IsIn(SITE_VISIBILITIES, { message: `visibility must be one of ${SITE_VISIBILITIES.join(', ')}` })
  visibility?: SiteVisibility;
  @ValidateIf(givenAndNotNull)
  @IsString()
  @Length(1, 100)
  @Matches(/^[a-z0-9][a-z0-9-]*$/, { message: 'basename must be lower-case letters, digits and hyphens' })
  basename?: string | null;
  @ValidateIf(given) @IsObject() @ValidateNested() @Type(() => EnabledBody) adaptiveContent?: EnabledBody;
  @ValidateIf(given) @IsIn(['excluded', 'included'], { message: 'agentsContext must be excluded or included' }) agentsContext?:
    'excluded' | 'included';
  @ValidateIf(given) @Matches(ID_SHAPES.entity, { message: 'defaultSiteSpace must be a site space id' }) defaultSiteSpace?: string;
  @ValidateIf(given) @Matches(ID_SHAPES.entity, { message: 'defaultSiteSection must be a section id' }) defaultSiteSection?: string;
  @ValidateIf(givenAndNotNull) @IsString() @MaxLength(512) @Matches(PROXY, { message: 'proxy must look like example.com/docs' }) proxy?:
    string | null;
  /** Extension: the site's custom hostname (unique across the service); null removes it. */
  @ValidateIf(givenAndNotNull)
  @IsString()
  @MaxLength(512)
  @Matches(NOT_AN_ADDRESS, { message: 'hostname must be a host name, not an IP address' })
  @Matches(SITE_HOSTNAME, { message: 'hostname must be a lower-case host name with at least three labels, like docs.example.com' })
  hostname?: string | null;
  /** Extension: the site's icon; null removes it. */
  @ValidateIf(givenAndNotNull) @IsObject() @ValidateNested() @Type(() => SiteIconBody) icon?: SiteIconBody | null;
  /** The members' default role on the site: `inherit` (their organization role), a role that raises it, or null. */
  @ValidateIf(givenAndNotNull)
  @IsIn(SITE_DEFAULT_LEVELS, { message: `defaultLevel must be one of ${SITE_DEFAULT_LEVELS.join(', ')} or null` })
  defaultLevel?: SiteDefaultLevel;
  /** The space holding the site's writing style guide, a space of the organization; null detaches it. */
  @ValidateIf(givenAndNotNull) @IsString() @Length(1, MAX_ID) styleguide?: string | null;
}

class ThemedIcons {
  @IsString() @MaxLength(2048) @IsUrl(HTTP_URL, { message: 'icon URLs must be http(s) URLs' }) light!: string;
  @IsString() @MaxLength(2048) @IsUrl(HTTP_URL, { message: 'icon URLs must be http(s) URLs' }) dark!: string;
}

class SiteIconBody {
  @IsObject() @ValidateNested() @Type(() => ThemedIcons) icon!: ThemedIcons;
}

export class PublishedSiteQuery {
  @ApiPropertyOptional({ description: "a share link's key (share-link sites)" })
  @IsOptional()
  @Matches(SHARE_KEY, { message: 'shareKey must be a share key' })
  shareKey?: string;
  @ApiPropertyOptional({ description: 'a visitor token, a JWT (visitor-auth sites and adaptive content)' })
  @IsOptional()
  @IsString()
  @MaxLength(8192)
  @Matches(JWT, { message: 'jwt_token must be a JWT' })
  jwt_token?: string;
}

/** `shareKey`: the key of one of the site's share links, for readers outside the organization. */
export class SectionListQuery extends ListQuery {
  @ApiPropertyOptional({ description: "a share link's key (share-link sites)" })
  @IsOptional()
  @Matches(SHARE_KEY, { message: 'shareKey must be a share key' })
  shareKey?: string;
}

export class CreateShareLinkBody {
  @ValidateIf(given) @IsString() @MaxLength(100) name?: string;
}

export class UpdateShareLinkBody {
  @ValidateIf(given) @IsString() @MaxLength(100) name?: string;
  @ValidateIf(given) @IsBoolean({ message: 'active must be true or false' }) active?: boolean;
}

export class VisitorAuthBody {
  @ApiPropertyOptional({ nullable: true, description: 'a JWKS URL whose RS256 keys sign visitor tokens; null: only the site key (HS256)' })
  @ValidateIf(givenAndNotNull)
  @IsString()
  @MaxLength(2048)
  @IsUrl(HTTP_URL, { message: 'jwksUrl must be an http(s) URL' })
  jwksUrl!: string | null;
  @ApiPropertyOptional({
    nullable: true,
    description: "the `iss` that tokens signed with the JWKS URL's keys must carry; null or absent: any issuer",
  })
  @ValidateIf(givenAndNotNull)
  @IsString({ message: 'issuer must be a string' })
  @Length(1, 2048, { message: 'issuer must be 1 to 2048 characters' })
  issuer?: string | null;
}

export class AddSectionBody {
  /** A space of the organization, or null for a new space named after the section. */
  @ValidateIf(notNull) @IsString({ message: 'spaceId must be a space id or null' }) @Length(1, MAX_ID) spaceId!: string | null;
  /**
   * Null, as absent: the space's title. Typed `string` for the document's sake (a `string | null`
   * member is an Object to reflection, which @NotBlank's schema would then name); null does arrive.
   */
  @ValidateIf(givenAndNotNull) @IsString() @Length(1, 128) @NotBlank() title?: string;
  /** Null, as absent: no icon. */
  @ValidateIf(givenAndNotNull) @IsString() @MaxLength(50) icon?: string | null;
  /** A draft section is left out of the published site until it is made live. */
  @ValidateIf(given) @IsBoolean({ message: 'draft must be true or false' }) draft?: boolean;
  /** A page of the space shown at the section's root instead of its first page. */
  @ValidateIf(given) @IsString() @Length(1, MAX_ID) pageId?: string;
  /** The section group to create the section in. */
  @ValidateIf(given) @IsString() @Length(1, MAX_ID) siteSectionGroupId?: string;
  @TemplateField() template?: TemplateRequest;
}

export class UpdateSectionBody {
  @ValidateIf(given) @IsString() @Length(1, 128) @NotBlank() title?: string;
  @ValidateIf(given)
  @IsString()
  @Length(1, 100)
  @Matches(PATH, { message: 'path must be lower-case words joined by hyphens' })
  path?: string;
  @ValidateIf(given) @Matches(ID_SHAPES.entity, { message: 'defaultSiteSpace must be a site space id' }) defaultSiteSpace?: string;
  @ValidateIf(givenAndNotNull) @IsString() @Length(1, 1024) condition?: string | null;
  @ValidateIf(givenAndNotNull) @IsString() @MaxLength(50) icon?: string | null;
  @ValidateIf(givenAndNotNull) @IsString() @MaxLength(256) description?: string | null;
  /** true makes the section a draft (left out of the published site), false makes it live. */
  @ValidateIf(given) @IsBoolean({ message: 'draft must be true or false' }) draft?: boolean;
  /** The section group to move the section into; null takes it out of its group. */
  @ValidateIf(givenAndNotNull) @IsString() @Length(1, MAX_ID) siteSectionGroupId?: string | null;
}

export class SiteSpaceListQuery extends ListQuery {
  @ApiPropertyOptional({ description: "a share link's key (share-link sites)" })
  @IsOptional()
  @Matches(SHARE_KEY, { message: 'shareKey must be a share key' })
  shareKey?: string;
  @ApiPropertyOptional({ enum: ['true', 'false'] })
  @IsOptional()
  @Transform(asBoolean)
  @IsBoolean({ message: 'default must be true or false' })
  default?: boolean;
}

export class AddSiteSpaceBody {
  /** A space of the organization, or null for a new space named after `title`. */
  @ValidateIf(notNull) @IsString({ message: 'spaceId must be a space id or null' }) @Length(1, MAX_ID) spaceId!: string | null;
  @ValidateIf(given) @Matches(ID_SHAPES.entity, { message: 'sectionId must be a section id' }) sectionId?: string;
  /** A draft site space is left out of the published site until it is made live. */
  @ValidateIf(given) @IsBoolean({ message: 'draft must be true or false' }) draft?: boolean;
  /** A page of the space shown at the site space's root instead of its first page; null, as absent, none. */
  @ValidateIf(givenAndNotNull) @IsString() @Length(1, MAX_ID) pageId?: string | null;
  /** The site's own title for this variant (absent: the space's). */
  @ValidateIf(given) @IsString() @Length(2, 128) @NotBlank() title?: string;
  @TemplateField() template?: TemplateRequest;
}

export class UpdateSiteSpaceBody {
  @ValidateIf(given)
  @IsString()
  @Length(1, 100)
  @Matches(PATH, { message: 'path must be lower-case words joined by hyphens' })
  path?: string;
  @ValidateIf(givenAndNotNull) @IsString() @Length(1, 1024) condition?: string | null;
  @ValidateIf(given) @Matches(ID_SHAPES.entity, { message: 'spaceId must be a space id' }) spaceId?: string;
  /** A page of the space shown at the site space's root; null removes it (so does a new `spaceId` without one). */
  @ValidateIf(givenAndNotNull) @IsString() @Length(1, MAX_ID) pageId?: string | null;
  /** true leaves the site space out of the site's navigation (still served at its URL). */
  @ValidateIf(given) @IsBoolean({ message: 'hidden must be true or false' }) hidden?: boolean;
  /** true makes the site space a draft (left out of the published site), false makes it live. */
  @ValidateIf(given) @IsBoolean({ message: 'draft must be true or false' }) draft?: boolean;
}

class SectionRef {
  @IsIn(['site-section']) type!: 'site-section';
  @Matches(ID_SHAPES.entity, { message: 'siteSection must be a section id' }) siteSection!: string;
}
class SectionPosition {
  @ValidateIf(given) @IsObject() @ValidateNested() @Type(() => SectionRef) before?: SectionRef;
  @ValidateIf(given) @IsObject() @ValidateNested() @Type(() => SectionRef) after?: SectionRef;
}
/** Without `position`, the section moves to the end of the site. */
export class MoveSectionBody {
  @ValidateIf(given) @IsObject() @ValidateNested() @Type(() => SectionPosition) position?: SectionPosition;
}

class SiteSpaceRef {
  @IsIn(['site-space']) type!: 'site-space';
  @Matches(ID_SHAPES.entity, { message: 'siteSpace must be a site space id' }) siteSpace!: string;
}
class SiteSpacePosition {
  @ValidateIf(given) @IsObject() @ValidateNested() @Type(() => SiteSpaceRef) before?: SiteSpaceRef;
  @ValidateIf(given) @IsObject() @ValidateNested() @Type(() => SiteSpaceRef) after?: SiteSpaceRef;
}
/** Without `position`, the site space moves to the end of its section. */
export class MoveSiteSpaceBody {
  @ValidateIf(given) @IsObject() @ValidateNested() @Type(() => SiteSpacePosition) position?: SiteSpacePosition;
}

export class AddSectionGroupBody {
  @IsString() @Length(1, 100) @NotBlank() title!: string;
  @ValidateIf(givenAndNotNull) @IsString() @MaxLength(50) icon?: string | null;
  @ValidateIf(given)
  @IsArray()
  @ArrayMaxSize(100)
  @Matches(ID_SHAPES.entity, { each: true, message: 'each of sections must be a section id' })
  sections?: string[];
  /** A draft group (and its sections) is left out of the published site until it is made live. */
  @ValidateIf(given) @IsBoolean({ message: 'draft must be true or false' }) draft?: boolean;
  /** A group to nest the new one in: section groups are not nested here (400; 404 for a group the site does not have). */
  @ValidateIf(given) @IsString() @Length(1, MAX_ID) parent?: string;
}

export class UpdateSectionGroupBody {
  @ValidateIf(given) @IsString() @Length(1, 100) @NotBlank() title?: string;
  @ValidateIf(givenAndNotNull) @IsString() @MaxLength(50) icon?: string | null;
  @ValidateIf(given) @IsBoolean({ message: 'draft must be true or false' }) draft?: boolean;
  /** null keeps the group at the site's root; a group id would nest it (not supported: 400). */
  @ValidateIf(givenAndNotNull) @IsString() @Length(1, MAX_ID) parentSectionGroupId?: string | null;
}

export class GroupSectionBody {
  @Matches(ID_SHAPES.entity, { message: 'sectionId must be a section id' }) sectionId!: string;
}

/** A section or another section group, which a group is placed before or after. */
class SectionOrGroupRef {
  @IsIn(['site-section', 'site-section-group'], { message: 'type must be site-section or site-section-group' }) type!:
    'site-section' | 'site-section-group';
  @Matches(ID_SHAPES.entity, { message: 'id must be a section or section group id' }) id!: string;
}
class GroupPosition {
  @ValidateIf(given) @IsObject() @ValidateNested() @Type(() => SectionOrGroupRef) before?: SectionOrGroupRef;
  @ValidateIf(given) @IsObject() @ValidateNested() @Type(() => SectionOrGroupRef) after?: SectionOrGroupRef;
}
/** Without `position`, the group's sections move to the end of the site. */
export class MoveSectionGroupBody {
  @ValidateIf(given) @IsObject() @ValidateNested() @Type(() => GroupPosition) position?: GroupPosition;
}

export class AdaptiveSchemaBody {
  @IsObject() jsonSchema!: Record<string, unknown>;
}

class SortSection {
  @Matches(ID_SHAPES.entity, { message: 'id must be a section id' }) id!: string;
  @ValidateIf(given)
  @IsArray()
  @ArrayMaxSize(1000)
  @Matches(ID_SHAPES.entity, { each: true, message: 'each of siteSpaces must be a site space id' })
  siteSpaces?: string[];
}

class SortEntry extends SortSection {
  @IsIn(['section', 'group'], { message: 'type must be section or group' }) type!: 'section' | 'group';
  @ValidateIf(given) @IsArray() @ArrayMaxSize(1000) @ValidateNested({ each: true }) @Type(() => SortSection) sections?: SortSection[];
}

/** `PATCH …/structure/sort`: the whole order in one call (groups list their sections), or the root's site spaces for a site without sections. */
export class SortStructureBody {
  @ValidateIf(given) @IsArray() @ArrayMaxSize(1000) @ValidateNested({ each: true }) @Type(() => SortEntry) structure?: SortEntry[];
  @ValidateIf(given)
  @IsArray()
  @ArrayMaxSize(1000)
  @Matches(ID_SHAPES.entity, { each: true, message: 'each of siteSpaces must be a site space id' })
  siteSpaces?: string[];
}
