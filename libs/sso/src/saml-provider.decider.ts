import { createHash } from 'node:crypto';
import { DomainError } from '#platform/errors';
import type { Decider } from '#event-store/decider';
import type {
  SamlAccessBasis,
  SamlAssertionEvent,
  SamlIdentityEvent,
  SamlProviderChanges,
  SamlProviderEvent,
  SamlProviderSettings,
  SamlRefusalEvent,
  SamlRefusalReason,
  SamlRequestEvent,
} from './saml-provider.events';

export const samlProviderStream = (providerId: string) => `samlprovider-${providerId}`;
export const samlRequestStream = (requestId: string) => `samlrequest-${requestId}`;
/** Assertion IDs are chosen by identity providers: the stream is named by their hash. */
export const samlAssertionStream = (assertionId: string) => `samlassertion-${sha256(assertionId)}`;
/** NameIDs are chosen by identity providers too: the stream is named by a hash of the provider and the NameID. */
export const samlIdentityStream = (providerId: string, nameId: string) => `samlidentity-${sha256(`${providerId}\n${nameId}`)}`;
export const samlRefusalStream = (providerId: string) => `samlrefusals-${providerId}`;
/** How a NameID shows in events and the audit log: never in clear. */
export const nameIdHash = (nameId: string) => sha256(nameId);

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

// ---- SAML provider ----------------------------------------------------------------------------

export interface SamlProviderState {
  /** Created and not deleted. */
  exists: boolean;
  organizationId: string | null;
  settings: SamlProviderSettings;
  createdAt: string | null;
}

export type SamlProviderCommand =
  | { kind: 'CreateSamlProvider'; providerId: string; organizationId: string; settings: SamlProviderSettings; now: string }
  | { kind: 'UpdateSamlProvider'; providerId: string; organizationId: string; changes: SamlProviderChanges }
  | { kind: 'DeleteSamlProvider'; providerId: string; organizationId: string };

const initialSettings = (): SamlProviderSettings => ({
  label: '',
  entityID: null,
  certificate: null,
  ssoURL: null,
  defaultTeam: null,
  defaultRole: null,
});

/**
 * A SAML identity provider of an organization. Who may manage it (organization admins) is checked
 * by the command handlers against the organizations context, before the command reaches here; the
 * decider keeps the provider inside its organization: addressed through another one, it does not exist.
 */
export const samlProviderDecider: Decider<SamlProviderCommand, SamlProviderEvent, SamlProviderState> = {
  initialState: () => ({ exists: false, organizationId: null, settings: initialSettings(), createdAt: null }),

  evolve(state, event) {
    switch (event.type) {
      case 'SamlProviderCreated': {
        const { providerId: _providerId, organizationId, createdAt, ...settings } = event.data;
        return { exists: true, organizationId, settings, createdAt };
      }
      case 'SamlProviderUpdated':
        return { ...state, settings: { ...state.settings, ...event.data.changes } };
      case 'SamlProviderDeleted':
        return { ...state, exists: false };
    }
  },

  decide(command, state): SamlProviderEvent[] | DomainError {
    const { providerId, organizationId } = command;
    if (command.kind === 'CreateSamlProvider') {
      if (state.organizationId !== null) return DomainError.conflict(`SAML provider ${providerId} already exists`);
      return [{ type: 'SamlProviderCreated', data: { providerId, organizationId, ...command.settings, createdAt: command.now } }];
    }
    if (!state.exists || state.organizationId !== organizationId) return DomainError.notFound(`no SAML provider ${providerId}`);
    if (command.kind === 'DeleteSamlProvider') return [{ type: 'SamlProviderDeleted', data: { providerId, organizationId } }];
    const changes = changedSettings(state.settings, command.changes);
    return Object.keys(changes).length === 0 ? [] : [{ type: 'SamlProviderUpdated', data: { providerId, organizationId, changes } }];
  },
};

function changedSettings(current: SamlProviderSettings, requested: SamlProviderChanges): SamlProviderChanges {
  const changes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(requested)) {
    if (value === undefined) continue;
    if (current[key as keyof SamlProviderSettings] !== value) changes[key] = value;
  }
  return changes as SamlProviderChanges;
}

/** What a login through the provider needs; null while the provider lacks its certificate or SSO URL. */
export interface SamlLoginSettings {
  providerId: string;
  organizationId: string;
  entityID: string | null;
  certificate: string;
  ssoURL: string;
  defaultTeam: string | null;
  defaultRole: SamlProviderSettings['defaultRole'];
}

export function loginSettings(providerId: string, state: SamlProviderState): SamlLoginSettings | null {
  const { certificate, ssoURL, entityID, defaultTeam, defaultRole } = state.settings;
  if (!state.exists || state.organizationId === null || certificate === null || ssoURL === null) return null;
  return { providerId, organizationId: state.organizationId, entityID, certificate, ssoURL, defaultTeam, defaultRole };
}

// ---- issued AuthnRequests ----------------------------------------------------------------------

export interface SamlRequestState {
  issued: { providerId: string; issuedAt: string } | null;
  consumed: boolean;
}

export type SamlRequestCommand =
  | { kind: 'IssueSamlRequest'; requestId: string; providerId: string; issuedAt: string }
  /** `ttlMs`: how long after its issue the request may be answered. */
  | { kind: 'ConsumeSamlRequest'; requestId: string; providerId: string; now: string; ttlMs: number };

/**
 * An AuthnRequest is issued once and answered at most once. Answering consumes it; every other
 * answer, even one decided in the same batch or appended by another replica meanwhile (the append
 * carries the expected revision, so the loser re-decides against the consumed state), is refused.
 */
export const samlRequestDecider: Decider<SamlRequestCommand, SamlRequestEvent, SamlRequestState> = {
  initialState: () => ({ issued: null, consumed: false }),
  evolve: (state, event) =>
    event.type === 'SamlRequestIssued'
      ? { issued: { providerId: event.data.providerId, issuedAt: event.data.issuedAt }, consumed: false }
      : { ...state, consumed: true },
  decide(command, state) {
    if (command.kind === 'IssueSamlRequest') {
      if (state.issued) return DomainError.conflict(`SAML request ${command.requestId} already exists`);
      return [
        { type: 'SamlRequestIssued', data: { requestId: command.requestId, providerId: command.providerId, issuedAt: command.issuedAt } },
      ];
    }
    // A request of another provider does not exist for this one.
    if (!state.issued || state.issued.providerId !== command.providerId)
      return DomainError.notFound(`no login request ${command.requestId}`);
    if (state.consumed) return DomainError.forbidden('the login request was already answered');
    if (Date.parse(command.now) - Date.parse(state.issued.issuedAt) >= command.ttlMs)
      return DomainError.forbidden('the login request has expired');
    return [{ type: 'SamlRequestConsumed', data: { requestId: command.requestId, providerId: state.issued.providerId } }];
  },
};

// ---- consumed assertions -----------------------------------------------------------------------

export interface SamlAssertionState {
  consumed: boolean;
}

export type SamlAssertionCommand = { kind: 'ConsumeSamlAssertion'; assertionId: string; providerId: string };

/** An assertion logs someone in once: a replay, on any replica, is refused. */
export const samlAssertionDecider: Decider<SamlAssertionCommand, SamlAssertionEvent, SamlAssertionState> = {
  initialState: () => ({ consumed: false }),
  evolve: () => ({ consumed: true }),
  decide(command, state) {
    if (state.consumed) return DomainError.conflict('this SAML assertion was already used');
    return [{ type: 'SamlAssertionConsumed', data: { assertionId: command.assertionId, providerId: command.providerId } }];
  },
};

// ---- NameID bindings -----------------------------------------------------------------------------

export interface SamlIdentityState {
  binding: { providerId: string; organizationId: string; userId: string; basis: SamlAccessBasis; boundAt: string } | null;
}

export type SamlIdentityCommand = {
  kind: 'BindSamlIdentity';
  providerId: string;
  organizationId: string;
  nameIdHash: string;
  userId: string;
  basis: SamlAccessBasis;
  now: string;
};

/** A provider's NameID names one user for good: bound once, never rebound to someone else. */
export const samlIdentityDecider: Decider<SamlIdentityCommand, SamlIdentityEvent, SamlIdentityState> = {
  initialState: () => ({ binding: null }),
  evolve: (_state, event) => {
    const { providerId, organizationId, userId, basis, boundAt } = event.data;
    return { binding: { providerId, organizationId, userId, basis, boundAt } };
  },
  decide(command, state) {
    if (state.binding !== null) {
      if (state.binding.userId === command.userId) return [];
      return DomainError.conflict('this identity of the SAML provider already signs in another user');
    }
    const { providerId, organizationId, nameIdHash, userId, basis, now } = command;
    return [{ type: 'SamlIdentityBound', data: { providerId, organizationId, nameIdHash, userId, basis, boundAt: now } }];
  },
};

// ---- refused logins ------------------------------------------------------------------------------

export interface SamlRefusalState {
  refusals: number;
}

export type SamlRefusalCommand = {
  kind: 'RecordSamlLoginRefusal';
  providerId: string;
  organizationId: string;
  reason: SamlRefusalReason;
  nameIdHash: string;
  emailDomain: string | null;
  now: string;
};

/** The provider's refused logins, for the organization's audit log: every refusal is recorded. */
export const samlRefusalDecider: Decider<SamlRefusalCommand, SamlRefusalEvent, SamlRefusalState> = {
  initialState: () => ({ refusals: 0 }),
  evolve: (state) => ({ refusals: state.refusals + 1 }),
  decide(command) {
    const { providerId, organizationId, reason, nameIdHash, emailDomain, now } = command;
    return [{ type: 'SamlLoginRefused', data: { providerId, organizationId, reason, nameIdHash, emailDomain, refusedAt: now } }];
  },
};
