import { OmitType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsString, IsUrl, Length, Matches, MaxLength, ValidateIf } from 'class-validator';
import { ID_PATTERN } from '#platform/ids';
import { ORGANIZATION_ROLES, type OrganizationRole } from '#platform/permissions';
import { NotBlank } from '#platform/http/validation';
import { IsX509Certificate } from './certificate';
import { SAML_RESPONSE_MAX_BASE64_LENGTH } from './saml-xml-limits';
import { UNSET_SSO_URL } from './saml-provider.queries';

/** The values a provider's unset settings are answered with read as unset, so that an answer sent back changes nothing. */
const unsetAs = (unset: string) => Transform(({ value }: { value: unknown }) => (value === unset ? null : value));

/** Present and not null: the member is being set. Absent: unchanged. Null passes only where a member is nullable. */
const given = (_: object, value: unknown) => value !== undefined;
const givenAndNotNull = (_: object, value: unknown) => value !== undefined && value !== null;

const ROLE_MESSAGE = `defaultRole must be one of ${ORGANIZATION_ROLES.join(', ')} or null`;

/**
 * `POST /v1/orgs/{organizationId}/saml`. Every member but `label` is optional and nullable; a
 * provider can be created first and completed later, but a login needs its `ssoURL` and `certificate`.
 */
export class CreateSamlProviderBody {
  @IsString()
  @Length(1, 30)
  @NotBlank()
  label!: string;

  /** The identity provider's entity ID; when set, assertions must name it as their Issuer. '' or null: unset. */
  @unsetAs('')
  @ValidateIf(givenAndNotNull)
  @IsString()
  @MaxLength(1024)
  entityID?: string | null;

  /** The identity provider's signing certificate (X.509, PEM). '' or null: unset. */
  @unsetAs('')
  @ValidateIf(givenAndNotNull)
  @IsString()
  @MaxLength(10000)
  @IsX509Certificate()
  certificate?: string | null;

  /** Where /start sends the browser with the AuthnRequest (HTTP-Redirect binding). `about:blank` or null: unset. */
  @unsetAs(UNSET_SSO_URL)
  @ValidateIf(givenAndNotNull)
  @IsUrl({ require_protocol: true, protocols: ['http', 'https'], require_tld: false }, { message: 'ssoURL must be an http(s) URL' })
  @MaxLength(2048)
  ssoURL?: string | null;

  /** A team of the organization. */
  @ValidateIf(givenAndNotNull)
  @IsString()
  @Matches(ID_PATTERN, { message: 'defaultTeam must be a team ID' })
  defaultTeam?: string | null;

  /** Role of people joining through this provider; null: guest. Absent on creation: `read`. */
  @ValidateIf(givenAndNotNull)
  @IsIn(ORGANIZATION_ROLES, { message: ROLE_MESSAGE })
  defaultRole?: OrganizationRole;
}

/** `PATCH /v1/orgs/{organizationId}/saml/{samlProviderId}`: the same members and rules, all optional. */
export class UpdateSamlProviderBody extends OmitType(CreateSamlProviderBody, ['label'] as const) {
  @ValidateIf(given)
  @IsString()
  @Length(1, 30)
  @NotBlank()
  label?: string;
}

/** `GET /v1/sso/saml/{providerId}/start`: an optional RelayState, returned by the provider to the ACS (SAML caps it at 80 bytes). */
export class StartSamlLoginQuery {
  @ValidateIf(given)
  @IsString()
  @Length(1, 80)
  RelayState?: string;
}

/** `POST /v1/sso/saml/{providerId}/acs`, form-encoded (SAML HTTP-POST binding); size and depth limits in saml-xml-limits.ts. */
export class SamlResponseBody {
  @IsString({ message: 'SAMLResponse must be a base64-encoded SAML response' })
  @Length(1, SAML_RESPONSE_MAX_BASE64_LENGTH)
  SAMLResponse!: string;

  @ValidateIf(given)
  @IsString()
  @MaxLength(1024)
  RelayState?: string;
}
