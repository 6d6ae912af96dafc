/** Content imports: fetching a website, a markdown file or a zip archive and planning its pages and files. */
export { refusedAddressRange } from '#platform/outbound/address-policy';
export { ImportFailure, type ImportFailureStatus } from './import-failure';
export {
  DEFAULT_IMPORT_LIMITS,
  importLimits,
  type HtmlPageOutline,
  type ImportConversions,
  type ImportDeps,
  type ImportedTargets,
  type ImportLimits,
  type ImportPlan,
  type ImportSource,
  type NewId,
  type PlannedFile,
  type PlannedPage,
} from './import-plan';
export { localImportConversions } from './import-conversions';
export { checkedMarkdown, importMarkdown, markdownPage, MAX_MARKDOWN_BYTES } from './markdown-import';
export { runImport, type ImportRequest, type RunImportOptions } from './run-import';
export {
  safeFetch,
  type ContentTypeRule,
  type FetchedResource,
  type LookupAddresses,
  type ResolvedAddress,
  type SafeFetchOptions,
} from './safe-fetch';
export { htmlPageMarkdown, importWebsite, outlineHtmlPage } from './website-import';
export { importZip, importZipBytes } from './zip-import';
