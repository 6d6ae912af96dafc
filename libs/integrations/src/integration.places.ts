import type { InstallationEvent, InstallationPlace, PlaceSettings } from './integration.events';

/**
 * Spaces and docs sites are the two places an installation is installed on, with the same rules,
 * events, read models, routes and integration events: this is what tells them apart (the events'
 * type names and id member, the collection, the configuration schema), so the rest is written once.
 */
export const INSTALLATION_PLACES: readonly InstallationPlace[] = ['space', 'site'];

type About = { installationId: string; integrationName: string; organizationId: string };
export type PlaceEventOf<T extends InstallationEvent['type']> = Extract<InstallationEvent, { type: T }>;
export type PlaceSetEvent = PlaceEventOf<'IntegrationSpaceInstallationSet' | 'IntegrationSiteInstallationSet'>;
export type PlaceRemovedEvent = PlaceEventOf<'IntegrationSpaceInstallationRemoved' | 'IntegrationSiteInstallationRemoved'>;

/** `spaceId` or `siteId`: the place's id in events, documents and integration events. */
export const placeIdMember = (place: InstallationPlace) => (place === 'space' ? 'spaceId' : 'siteId');

export function placeSet(
  place: InstallationPlace,
  about: About,
  placeId: string,
  settings: PlaceSettings & { previous: PlaceSettings | null; setBy: string; setAt: string },
): PlaceSetEvent {
  return place === 'space'
    ? { type: 'IntegrationSpaceInstallationSet', data: { ...about, spaceId: placeId, ...settings } }
    : { type: 'IntegrationSiteInstallationSet', data: { ...about, siteId: placeId, ...settings } };
}

export function placeRemoved(
  place: InstallationPlace,
  about: About,
  placeId: string,
  by: { removedBy: string; removedAt: string },
): PlaceRemovedEvent {
  return place === 'space'
    ? { type: 'IntegrationSpaceInstallationRemoved', data: { ...about, spaceId: placeId, ...by } }
    : { type: 'IntegrationSiteInstallationRemoved', data: { ...about, siteId: placeId, ...by } };
}

/** The place an installation event is about, with whether it was set or removed; null for the installation's own events. */
export function placeOf(event: InstallationEvent): { place: InstallationPlace; placeId: string; change: 'set' | 'removed' } | null {
  switch (event.type) {
    case 'IntegrationSpaceInstallationSet':
      return { place: 'space', placeId: event.data.spaceId, change: 'set' };
    case 'IntegrationSpaceInstallationRemoved':
      return { place: 'space', placeId: event.data.spaceId, change: 'removed' };
    case 'IntegrationSiteInstallationSet':
      return { place: 'site', placeId: event.data.siteId, change: 'set' };
    case 'IntegrationSiteInstallationRemoved':
      return { place: 'site', placeId: event.data.siteId, change: 'removed' };
    default:
      return null;
  }
}
