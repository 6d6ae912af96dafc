export * from './content.events';
export * from './content.needs';
export * from './content.decider';
export * from './content.projections';
export * from './content.provides';
export * from './content.presenter';
export * from './content.context';
// The search index, for its benchmark (bench/content-search.bench.ts).
export { queryTerms, SpaceSearchIndex, type SearchablePage } from './search/space-search-index';
// Revision trees and bodies for the CLI's `seed`, built as the content writes build them.
export { ContentSeedTrees, SeedBodies, type SeedEdits, type SeedPage, type SeedTree } from './content.seeding';
