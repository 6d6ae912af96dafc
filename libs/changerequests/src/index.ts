export * from './changerequest.events';
export * from './changerequests.needs';
export * from './changerequests.provides';
export * from './changerequests.context';
// The aggregates, for the CLI's `seed` (events made by the deciders themselves).
export * from './changerequest.decider';
