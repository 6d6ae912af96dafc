import { randomBytes } from 'node:crypto';
import type { CacheProvider, Profile, SAML } from '@node-saml/node-saml';
import { isEmail } from 'class-validator';
import { ApiError } from '#platform/http/error-envelope';
import { lazyPackage } from '#platform/lazy-package';
import type { SamlLoginSettings } from './saml-provider.decider';
import type { SamlServiceUrls } from './saml-service';

const nodeSaml = lazyPackage(() => require('@node-saml/node-saml') as typeof import('@node-saml/node-saml'));
const xml2js = lazyPackage(() => require('xml2js') as typeof import('xml2js'));

export const EMAIL_NAME_ID_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
/** How long an AuthnRequest may be answered: time enough for a login with MFA at the identity provider. */
export const SAML_REQUEST_TTL_MS = 60 * 60 * 1000;
/** Tolerated difference between our clock and the identity provider's for NotBefore / NotOnOrAfter. */
export const SAML_CLOCK_SKEW_MS = 60 * 1000;
/** What a request id may look like before it names a stream (ours are `_` and 40 hex digits). */
export const SAML_REQUEST_ID = /^[A-Za-z0-9_.-]{1,128}$/;
const MAX_ASSERTION_ID_LENGTH = 1024;
const MAX_NAME_ID_LENGTH = 1024;

const EMAIL_ATTRIBUTES = [
  'email',
  'mail',
  'emailAddress',
  'urn:oid:0.9.2342.19200300.100.1.3',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
];
const DISPLAY_NAME_ATTRIBUTES = [
  'displayName',
  'name',
  'urn:oid:2.16.840.1.113730.3.1.241',
  'http://schemas.microsoft.com/identity/claims/displayname',
];
const GIVEN_NAME_ATTRIBUTES = [
  'givenName',
  'firstName',
  'urn:oid:2.5.4.42',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname',
];
const SURNAME_ATTRIBUTES = [
  'sn',
  'surname',
  'lastName',
  'urn:oid:2.5.4.4',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname',
];

/**
 * node-saml configured for one provider: HTTP-Redirect AuthnRequests to its `ssoURL`; responses
 * must be signed (the Response, the Assertion, or both) by its certificate, be meant for our entity
 * ID (Audience), be within their validity window, and answer a request we issued (`InResponseTo`,
 * looked up in `requests`): logins start at our `startURL`, identity-provider-initiated ones are refused.
 */
export function samlClient(settings: SamlLoginSettings, service: SamlServiceUrls, requests: CacheProvider): SAML {
  const { SAML, ValidateInResponseTo } = nodeSaml();
  return new SAML({
    entryPoint: settings.ssoURL,
    issuer: service.entityID,
    audience: service.entityID,
    callbackUrl: service.acsURL,
    idpCert: settings.certificate,
    // Either signature is enough; node-saml still refuses a response where neither verifies.
    wantAuthnResponseSigned: false,
    wantAssertionsSigned: false,
    acceptedClockSkewMs: SAML_CLOCK_SKEW_MS,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: SAML_REQUEST_TTL_MS,
    cacheProvider: requests,
    generateUniqueId: () => `_${randomBytes(20).toString('hex')}`,
    identifierFormat: EMAIL_NAME_ID_FORMAT,
    // Let the identity provider choose how people authenticate (password, MFA, Kerberos, …).
    disableRequestedAuthnContext: true,
  });
}

/** Who a verified assertion is about. */
export interface VerifiedAssertion {
  assertionId: string;
  /** The AuthnRequest it answers. */
  requestId: string;
  issuer: string | null;
  /** The subject's NameID (what a binding to a user is keyed by) and its format. */
  nameID: string;
  nameIDFormat: string | null;
  email: string;
  displayName: string | null;
}

/** 401: the response does not log anyone in. */
export function samlRejected(reason: string): ApiError {
  return new ApiError(401, `invalid SAML response: ${reason}`);
}

/**
 * Verifies a base64 `SAMLResponse` for the provider (see samlClient), then what node-saml leaves
 * to us: the Response's `Destination` and the assertion's `Recipient` are our ACS URL, the assertion's
 * Issuer is the provider's entity ID (when one is configured), and it names the user's e-mail address.
 * Every refusal is a 401 naming the reason; store outages pass through (503).
 */
export async function verifySamlResponse(
  saml: SAML,
  settings: SamlLoginSettings,
  service: SamlServiceUrls,
  samlResponse: string,
): Promise<VerifiedAssertion> {
  let profile: Profile | null;
  try {
    ({ profile } = await saml.validatePostResponseAsync({ SAMLResponse: samlResponse }));
  } catch (error) {
    if (isStoreFailure(error)) throw error;
    throw samlRejected(describeFailure(error, service));
  }
  if (!profile) throw samlRejected('the identity provider authenticated nobody');
  const requestId = typeof profile.inResponseTo === 'string' ? profile.inResponseTo : null;
  if (requestId === null) throw samlRejected(`it answers no login request of ours: start logins at ${service.startURL}`);
  // The request is not consumed here: the caller does it atomically (EventLogSamlRequests.consume), so that of
  // several valid answers to one request only one is accepted.

  const response = await parseXml(Buffer.from(samlResponse, 'base64').toString('utf8'));
  const destination = attribute(response.Response, 'Destination');
  if (destination !== null && destination !== service.acsURL)
    throw samlRejected(`it is addressed to ${destination}, not to ${service.acsURL}`);

  const assertion = asNode((profile.getAssertion?.() as XmlNode | undefined)?.Assertion);
  const assertionId = attribute(assertion, 'ID');
  if (!assertionId || assertionId.length > MAX_ASSERTION_ID_LENGTH) throw samlRejected('the assertion has no valid ID');
  const recipients = children(assertion, 'Subject')
    .flatMap((subject) => children(subject, 'SubjectConfirmation'))
    .flatMap((confirmation) => children(confirmation, 'SubjectConfirmationData'))
    .map((data) => attribute(data, 'Recipient'))
    .filter((recipient): recipient is string => recipient !== null);
  const foreign = recipients.find((recipient) => recipient !== service.acsURL);
  if (foreign !== undefined) throw samlRejected(`the assertion's recipient is ${foreign}, not ${service.acsURL}`);

  const issuer = typeof profile.issuer === 'string' ? profile.issuer.trim() : null;
  if (settings.entityID !== null && issuer !== settings.entityID) {
    throw samlRejected(`the assertion was issued by ${issuer ?? 'no issuer'}, not by the provider's entityID ${settings.entityID}`);
  }
  const nameID = firstString(profile.nameID);
  if (nameID === null || nameID.length > MAX_NAME_ID_LENGTH)
    throw samlRejected('the assertion names no subject (a NameID of at most 1024 characters)');
  const nameIDFormat = typeof profile.nameIDFormat === 'string' ? profile.nameIDFormat : null;
  const email = emailOf(profile);
  if (email === null) throw samlRejected('the assertion names no e-mail address (a NameID in emailAddress format, or an email attribute)');
  return { assertionId, requestId, issuer, nameID, nameIDFormat, email, displayName: displayNameOf(profile) };
}

/** node-saml's reasons, in words a person configuring an identity provider can act on. */
function describeFailure(error: unknown, service: SamlServiceUrls): string {
  if (error instanceof nodeSaml().SamlStatusError) return `the identity provider refused the login (${clip(error.message)})`;
  if (!(error instanceof Error) || error.constructor !== Error) return 'it is not a well-formed SAML 2.0 response';
  const message = error.message;
  if (/signature/i.test(message))
    return "it is not signed by the provider's certificate (no valid signature over the Response or the Assertion)";
  if (/expired/i.test(message)) return 'the assertion has expired (NotOnOrAfter is past)';
  if (/not yet valid/i.test(message)) return 'the assertion is not valid yet (NotBefore is in the future)';
  // node-saml checks the subject confirmation's window first, and only says that none is valid.
  if (/no valid subject confirmation/i.test(message))
    return 'the assertion has expired or is not valid yet (see its SubjectConfirmationData NotBefore and NotOnOrAfter)';
  if (/audience/i.test(message)) return `the assertion is not meant for us: its Audience must be ${service.entityID}`;
  if (/InResponseTo is missing/i.test(message)) return `it answers no login request of ours: start logins at ${service.startURL}`;
  if (/InResponseTo/i.test(message)) return 'it answers a login request that is unknown, expired or already answered';
  if (/Missing SAML assertion/i.test(message)) return 'it carries no assertion';
  return clip(message);
}

const clip = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

function isStoreFailure(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'EventStoreUnavailableError' || name === 'ReadStoreUnavailableError';
}

// ---- the parsed XML (xml2js with prefixes stripped, as node-saml parses it) ------------------------

interface XmlNode {
  $?: Record<string, unknown>;
  _?: unknown;
  [child: string]: unknown;
}

function parseXml(xml: string): Promise<XmlNode> {
  const { parseStringPromise, processors } = xml2js();
  return parseStringPromise(xml, {
    explicitRoot: true,
    explicitCharkey: true,
    tagNameProcessors: [processors.stripPrefix],
  }) as Promise<XmlNode>;
}

function asNode(value: unknown): XmlNode | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as XmlNode) : undefined;
}

function children(node: unknown, name: string): XmlNode[] {
  const value = asNode(node)?.[name];
  return Array.isArray(value)
    ? value.flatMap((child: unknown): XmlNode[] => {
        const node = asNode(child);
        return node ? [node] : [];
      })
    : [];
}

function attribute(node: unknown, name: string): string | null {
  const value = asNode(node)?.$?.[name];
  return typeof value === 'string' ? value : null;
}

// ---- who the assertion is about --------------------------------------------------------------------

function firstString(value: unknown): string | null {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first.trim() !== '' ? first.trim() : null;
}

function attributeValue(profile: Profile, names: readonly string[]): string | null {
  const attributes = asNode(profile.attributes) ?? {};
  for (const name of names) {
    const value = firstString(attributes[name]);
    if (value !== null) return value;
  }
  return null;
}

function emailOf(profile: Profile): string | null {
  const candidates = [
    profile.nameIDFormat === EMAIL_NAME_ID_FORMAT ? firstString(profile.nameID) : null,
    attributeValue(profile, EMAIL_ATTRIBUTES),
    firstString(profile.email),
  ];
  return candidates.find((value): value is string => value !== null && value.length <= 254 && isEmail(value)) ?? null;
}

function displayNameOf(profile: Profile): string | null {
  const name =
    attributeValue(profile, DISPLAY_NAME_ATTRIBUTES) ??
    ([attributeValue(profile, GIVEN_NAME_ATTRIBUTES), attributeValue(profile, SURNAME_ATTRIBUTES)]
      .filter((part) => part !== null)
      .join(' ') ||
      null);
  return name === null ? null : name.slice(0, 100);
}
