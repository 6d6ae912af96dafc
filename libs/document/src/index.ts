/** The document model of page bodies and its conversions (docs/content.md). */
export * from './document.model';
export { DOCUMENT_LIMITS } from './document.schema';
export { hrefOfRef, refOfHref, type LinkResolver } from './content-refs';
export { markdownToDocument, MAX_MARKDOWN_LENGTH, type MarkdownDocument, type MarkdownToDocumentOptions } from './markdown-import';
export { documentToMarkdown, type DocumentToMarkdownOptions } from './markdown-export';
export { parseDocument, type ParseDocumentOptions } from './parse-document';
export {
  blockPreview,
  blockText,
  documentReferences,
  documentSections,
  documentText,
  type DocumentReference,
  type DocumentSection,
} from './document-text';
export { evaluateDocument, type DocumentVariables } from './evaluate-document';
export { carryKeys, type CarryKeysOptions } from './carry-keys';
export {
  DEFAULT_MARKDOWN_REFS,
  MARKDOWN_REFS,
  markdownFileOf,
  pageRefOfRelativeHref,
  relativePageHref,
  withPageLinksFromRelativeHrefs,
  withRelativePageLinks,
  type MarkdownRefs,
  type PageLocation,
} from './markdown-refs';
