import { lazyPackage } from '#platform/lazy-package';

export { yaml } from '#platform/lazy-package';

/**
 * The content context's conversion packages, loaded on first use (`lazyPackage`): markdown, HTML,
 * YAML front matter, PDF, zip, image sizes and list diffs are needed by writes, imports and
 * exports, not to start the service or to serve JSON reads.
 */
export const hastFromHtml = lazyPackage(() => require('hast-util-from-html') as typeof import('hast-util-from-html'));
export const hastToMdast = lazyPackage(() => require('hast-util-to-mdast') as typeof import('hast-util-to-mdast'));
export const mdastFromMarkdown = lazyPackage(() => require('mdast-util-from-markdown') as typeof import('mdast-util-from-markdown'));
export const mdastToMarkdown = lazyPackage(() => require('mdast-util-to-markdown') as typeof import('mdast-util-to-markdown'));
export const mdastGfm = lazyPackage(() => require('mdast-util-gfm') as typeof import('mdast-util-gfm'));
export const micromarkGfm = lazyPackage(() => require('micromark-extension-gfm') as typeof import('micromark-extension-gfm'));
export const pdfkit = lazyPackage(() => require('pdfkit') as typeof import('pdfkit'));
export const fflate = lazyPackage(() => require('fflate') as typeof import('fflate'));
export const imageSizes = lazyPackage(() => require('image-size') as typeof import('image-size'));
export const diff = lazyPackage(() => require('diff') as typeof import('diff'));
