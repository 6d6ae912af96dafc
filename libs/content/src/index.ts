export * from './content.events';
export * from './content.needs';
export * from './content.decider';
export * from './content.projections';
export * from './content.provides';
export * from './content.presenter';
export * from './content.context';
// The content routes' request shapes, a published language: a change request's content routes take the same.
export { ContentListQuery, ContentReadQuery, ImportBody, LinksQuery, WriteContentBody } from './content.dto';
// The search index, for its benchmark (bench/content-search.bench.ts).
export { queryTerms, SpaceSearchIndex, type SearchablePage } from './search/space-search-index';
// The tree building blocks, for the CLI's `seed` (it builds revision trees as the content writes build them).
export { loadedTreesOf } from './content.trees';
export { TreeEditor } from './tree/tree-editor';
export { EMPTY_TREE_ROOT } from './tree/tree-store';
