export * from './comment.events';
export * from './comments-spaces.port';
export * from './comments-content.port';
export * from './comment.ports';
export * from './comments.context';
// The aggregate, for the CLI's `seed` (events made by the decider itself).
export * from './comment.decider';
