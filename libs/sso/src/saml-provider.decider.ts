import { createHash } from 'node:crypto';
import { DomainError } from '../../platform/src/errors';
import type { Decider } from '../../event-store/src/decider';
import type { SamlAssertionEvent, SamlProviderChanges, SamlProviderEvent, SamlProviderSettings, SamlRequestEvent } from './saml-provider.events';

export const samlProviderStream = (providerId: string) => `samlprovider-${providerId}`;
export const samlRequestStream = (requestId: string) => `samlrequest-${requestId}`;
/** Assertion IDs are chosen by identity providers: the stream is named by their hash. */
export const samlAssertionStream = (assertionId: string) => `samlassertion-${createHash('sha256').update(assertionId).digest('hex')}`;

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

const initialSettings = (): SamlProviderSettings => ({ label: '', entityID: null, certificate: null, ssoURL: null, defaultTeam: null, defaultRole: null });

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
  | { kind: 'ConsumeSamlRequest'; requestId: string };

/** An AuthnRequest is issued once and answered at most once. */
export const samlRequestDecider: Decider<SamlRequestCommand, SamlRequestEvent, SamlRequestState> = {
  initialState: () => ({ issued: null, consumed: false }),
  evolve: (state, event) =>
    event.type === 'SamlRequestIssued' ? { issued: { providerId: event.data.providerId, issuedAt: event.data.issuedAt }, consumed: false } : { ...state, consumed: true },
  decide(command, state) {
    if (command.kind === 'IssueSamlRequest') {
      if (state.issued) return DomainError.conflict(`SAML request ${command.requestId} already exists`);
      return [{ type: 'SamlRequestIssued', data: { requestId: command.requestId, providerId: command.providerId, issuedAt: command.issuedAt } }];
    }
    if (!state.issued || state.consumed) return [];
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
