export * from './changerequest.events';
export * from './changerequests-spaces.port';
export * from './changerequests-content.port';
export { CHANGE_REQUEST_URL_KEY, changeRequestUrlKey } from './changerequest.queries';
export type { ChangeRequestLine } from './changerequest.commands';
export * from './changerequest.ports';
export * from './changerequests.context';
// The aggregates, for the CLI's `seed` (events made by the deciders themselves).
export * from './changerequest.decider';
