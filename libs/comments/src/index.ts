export * from './comment.events';
export * from './comments-spaces.port';
export * from './comments-content.port';
export * from './comment.ports';
export * from './comments.context';
