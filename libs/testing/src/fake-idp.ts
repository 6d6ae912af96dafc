/**
 * A SAML identity provider for tests (specs and test/sso.e2e.ts): a real RSA key pair and a
 * self-signed X.509 certificate made with node-forge, and SAML 2.0 responses signed with xml-crypto
 * (RSA-SHA256, exclusive c14n, enveloped signatures over the Assertion and/or the Response), the way
 * Okta, Entra ID or Keycloak post them. Not used by the service itself.
 */
import { randomBytes } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import * as forge from 'node-forge';
import { SignedXml } from 'xml-crypto';

const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';
export const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';

export interface KeyPair {
  privateKey: string;
  certificate: string;
}

/** A 2048-bit RSA key and a self-signed certificate for it, valid from a minute ago for a year. */
export function generateKeyPair(commonName = 'Test IdP'): KeyPair {
  const keys = forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = keys.publicKey;
  certificate.serialNumber = `01${randomBytes(8).toString('hex')}`;
  certificate.validity.notBefore = new Date(Date.now() - 60_000);
  certificate.validity.notAfter = new Date(Date.now() + 365 * 24 * 3600 * 1000);
  const subject = [{ name: 'commonName', value: commonName }];
  certificate.setSubject(subject);
  certificate.setIssuer(subject);
  certificate.sign(keys.privateKey, forge.md.sha256.create());
  return { privateKey: forge.pki.privateKeyToPem(keys.privateKey), certificate: forge.pki.certificateToPem(certificate) };
}

export interface ResponseOptions {
  /** Our side: the Audience, and the ACS URL used as Destination and Recipient unless overridden. */
  audience: string;
  acsURL: string;
  /** The AuthnRequest answered (Response and SubjectConfirmationData InResponseTo); null: none. */
  inResponseTo: string | null;
  /** NameID value; its format is emailAddress unless `nameIDFormat` says otherwise. */
  nameID: string;
  nameIDFormat?: string;
  attributes?: Record<string, string | string[]>;
  /** Defaults: the IdP's entity ID. */
  issuer?: string;
  /** Default: acsURL; null leaves Destination out. */
  destination?: string | null;
  /** Default: acsURL. */
  recipient?: string;
  assertionId?: string;
  /** Default now. */
  issueInstant?: Date;
  /** Conditions and SubjectConfirmationData window; defaults: a minute ago .. five minutes from now. */
  notBefore?: Date;
  notOnOrAfter?: Date;
  /** What to sign; default the assertion. */
  sign?: 'assertion' | 'response' | 'both' | 'none';
  /** Sign with another key than the IdP's. */
  signingKey?: KeyPair;
}

export class FakeIdp {
  readonly keys: KeyPair;

  constructor(
    readonly entityID = 'https://idp.example.test/metadata',
    keys?: KeyPair,
  ) {
    this.keys = keys ?? generateKeyPair();
  }

  get certificate(): string {
    return this.keys.certificate;
  }

  /** The signed Response XML. */
  responseXml(options: ResponseOptions): string {
    const now = options.issueInstant ?? new Date();
    const notBefore = options.notBefore ?? new Date(now.getTime() - 60_000);
    const notOnOrAfter = options.notOnOrAfter ?? new Date(now.getTime() + 5 * 60_000);
    const issuer = options.issuer ?? this.entityID;
    const assertionId = options.assertionId ?? `_a${randomBytes(16).toString('hex')}`;
    const responseId = `_r${randomBytes(16).toString('hex')}`;
    const destination = options.destination === undefined ? options.acsURL : options.destination;
    const inResponseTo = options.inResponseTo === null ? '' : ` InResponseTo="${escape(options.inResponseTo)}"`;
    const attributes = Object.entries(options.attributes ?? {})
      .map(
        ([name, values]) =>
          `<saml:Attribute Name="${escape(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">${([] as string[])
            .concat(values)
            .map((value) => `<saml:AttributeValue>${escape(value)}</saml:AttributeValue>`)
            .join('')}</saml:Attribute>`,
      )
      .join('');
    const assertion =
      `<saml:Assertion xmlns:saml="${ASSERTION}" ID="${assertionId}" Version="2.0" IssueInstant="${now.toISOString()}">` +
      `<saml:Issuer>${escape(issuer)}</saml:Issuer>` +
      `<saml:Subject>` +
      `<saml:NameID Format="${escape(options.nameIDFormat ?? EMAIL_FORMAT)}">${escape(options.nameID)}</saml:NameID>` +
      `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">` +
      `<saml:SubjectConfirmationData${inResponseTo} NotOnOrAfter="${notOnOrAfter.toISOString()}" Recipient="${escape(options.recipient ?? options.acsURL)}"/>` +
      `</saml:SubjectConfirmation>` +
      `</saml:Subject>` +
      `<saml:Conditions NotBefore="${notBefore.toISOString()}" NotOnOrAfter="${notOnOrAfter.toISOString()}">` +
      `<saml:AudienceRestriction><saml:Audience>${escape(options.audience)}</saml:Audience></saml:AudienceRestriction>` +
      `</saml:Conditions>` +
      `<saml:AuthnStatement AuthnInstant="${now.toISOString()}" SessionIndex="${assertionId}">` +
      `<saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext>` +
      `</saml:AuthnStatement>` +
      (attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : '') +
      `</saml:Assertion>`;
    const sign = options.sign ?? 'assertion';
    const key = options.signingKey ?? this.keys;
    const signedAssertion = sign === 'assertion' || sign === 'both' ? signElement(assertion, 'Assertion', key) : assertion;
    const response =
      `<samlp:Response xmlns:samlp="${PROTOCOL}" xmlns:saml="${ASSERTION}" ID="${responseId}" Version="2.0" IssueInstant="${now.toISOString()}"` +
      `${destination === null ? '' : ` Destination="${escape(destination)}"`}${inResponseTo}>` +
      `<saml:Issuer>${escape(issuer)}</saml:Issuer>` +
      `<samlp:Status><samlp:StatusCode Value="${SUCCESS}"/></samlp:Status>` +
      signedAssertion +
      `</samlp:Response>`;
    return sign === 'response' || sign === 'both' ? signElement(response, 'Response', key) : response;
  }

  /** The form field value: base64 of the Response XML. */
  response(options: ResponseOptions): string {
    return Buffer.from(this.responseXml(options), 'utf8').toString('base64');
  }
}

/** Enveloped RSA-SHA256 signature over the element, placed after its Issuer (as SAML requires). */
export function signElement(xml: string, localName: 'Assertion' | 'Response', key: KeyPair): string {
  const signature = new SignedXml({
    privateKey: key.privateKey,
    publicCert: key.certificate,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  signature.addReference({
    xpath: `//*[local-name(.)='${localName}']`,
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
  });
  signature.computeSignature(xml, {
    location: { reference: `//*[local-name(.)='${localName}']/*[local-name(.)='Issuer']`, action: 'after' },
  });
  return signature.getSignedXml();
}

/** The AuthnRequest an HTTP-Redirect URL carries (SAMLRequest: deflated, base64). */
export function authnRequestOf(redirectUrl: string): { id: string; xml: string; relayState: string | null } {
  const url = new URL(redirectUrl);
  const encoded = url.searchParams.get('SAMLRequest');
  if (!encoded) throw new Error(`no SAMLRequest in ${redirectUrl}`);
  const xml = inflateRawSync(Buffer.from(encoded, 'base64')).toString('utf8');
  const id = /\bID="([^"]+)"/.exec(xml)?.[1];
  if (!id) throw new Error(`no ID in the AuthnRequest ${xml}`);
  return { id, xml, relayState: url.searchParams.get('RelayState') };
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
