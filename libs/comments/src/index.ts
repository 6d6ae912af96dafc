export * from './comment.events';
export * from './comments.needs';
export * from './comments.provides';
export * from './comments.context';
// The aggregate, for the CLI's `seed` (events made by the decider itself).
export * from './comment.decider';
