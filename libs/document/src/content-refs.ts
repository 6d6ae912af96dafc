import type { ContentRef } from './document.model';

/**
 * Content references as markdown writes them (docs/content.md, "Content references"):
 * `/pages/<id>`, `/files/<id>`, `#anchor`, `/pages/<id>#anchor`, `/users/<id>`, the same under
 * `/spaces/<space>/...`, `/spaces/<id>`, `/collections/<id>`, `/openapi/<spec>`, and anything else
 * as a URL. `hrefOfRef` and `refOfHref` are inverses on every reference markdown can hold.
 */

/** Maps an href a caller knows (a relative `./other.md`, a temporary ref) to a reference, else null. */
export type LinkResolver = (href: string) => ContentRef | null;

const ID = '[A-Za-z0-9_-]{1,64}';
const PAGE = new RegExp(`^(?:/spaces/(${ID}))?/pages/(${ID})(?:#(.+))?$`);
const FILE = new RegExp(`^(?:/spaces/(${ID}))?/files/(${ID})$`);
const SIMPLE: ReadonlyArray<[RegExp, (id: string) => ContentRef]> = [
  [new RegExp(`^/users/(${ID})$`), (user) => ({ kind: 'user', user })],
  [new RegExp(`^/spaces/(${ID})$`), (space) => ({ kind: 'space', space })],
  [new RegExp(`^/collections/(${ID})$`), (collection) => ({ kind: 'collection', collection })],
  [new RegExp(`^/openapi/(${ID})$`), (spec) => ({ kind: 'openapi', spec })],
];

/** URL schemes a link may use; any other (javascript:, data:, vbscript:, file:, ...) is refused. */
const SAFE_SCHEMES = new Set(['http', 'https', 'mailto', 'tel']);

/**
 * The reference an href names: the resolver's answer first, then the platform's paths, then a URL.
 * Null when the href must not become a link (empty, or a scheme that runs code or reads local
 * files): the caller keeps the link's text and drops the target.
 */
export function refOfHref(href: string, resolveLink?: LinkResolver): ContentRef | null {
  const resolved = resolveLink?.(href);
  if (resolved) return resolved;
  // Browsers drop tabs and newlines anywhere in a URL and leading controls and spaces before reading
  // its scheme, so `java\tscript:` is still javascript: look at the URL the way they will.
  const url = href.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+/, '');
  if (url === '') return null;
  const page = PAGE.exec(url);
  if (page) {
    const [, space, id, anchor] = page;
    if (anchor !== undefined) return { kind: 'anchor', anchor, page: id, ...(space ? { space } : {}) };
    return { kind: 'page', page: id, ...(space ? { space } : {}) };
  }
  const file = FILE.exec(url);
  if (file) return { kind: 'file', file: file[2], ...(file[1] ? { space: file[1] } : {}) };
  if (url.startsWith('#') && url.length > 1) return { kind: 'anchor', anchor: url.slice(1) };
  for (const [pattern, build] of SIMPLE) {
    const match = pattern.exec(url);
    if (match) return build(match[1]);
  }
  return hasSafeScheme(url) ? { kind: 'url', url } : null;
}

/** Whether a URL is relative or uses a scheme a link may use. */
export function hasSafeScheme(url: string): boolean {
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+/, ''));
  return !scheme || SAFE_SCHEMES.has(scheme[1].toLowerCase());
}

/** The href markdown writes for a reference. */
export function hrefOfRef(ref: ContentRef): string {
  const inSpace = (path: string, space?: string) => (space ? `/spaces/${space}${path}` : path);
  switch (ref.kind) {
    case 'page':
      return inSpace(`/pages/${ref.page}`, ref.space);
    case 'file':
      return inSpace(`/files/${ref.file}`, ref.space);
    case 'anchor':
      return ref.page ? `${inSpace(`/pages/${ref.page}`, ref.space)}#${ref.anchor}` : `#${ref.anchor}`;
    case 'url':
      return ref.url;
    case 'space':
      return `/spaces/${ref.space}`;
    case 'collection':
      return `/collections/${ref.collection}`;
    case 'user':
      return `/users/${ref.user}`;
    case 'openapi':
      return `/openapi/${ref.spec}`;
  }
}

const REF_FIELDS: Readonly<Record<ContentRef['kind'], { required: readonly string[]; optional: readonly string[] }>> = {
  page: { required: ['page'], optional: ['space'] },
  file: { required: ['file'], optional: ['space'] },
  anchor: { required: ['anchor'], optional: ['page', 'space'] },
  url: { required: ['url'], optional: [] },
  space: { required: ['space'], optional: [] },
  collection: { required: ['collection'], optional: [] },
  user: { required: ['user'], optional: [] },
  openapi: { required: ['spec'], optional: [] },
};

const MAX_REF_FIELD = 2048;

/**
 * A reference read from client JSON, rebuilt with its known fields only; an error message (without
 * the path) when it is not one.
 */
export function readContentRef(value: unknown): ContentRef | string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'must be a content reference object';
  const record = value as Record<string, unknown>;
  const kind = record.kind;
  if (typeof kind !== 'string' || !Object.hasOwn(REF_FIELDS, kind))
    return `has an unknown reference kind ${JSON.stringify(String(kind).slice(0, 40))}`;
  const fields = REF_FIELDS[kind as ContentRef['kind']];
  const ref: Record<string, string> = { kind };
  for (const name of [...fields.required, ...fields.optional]) {
    const field = record[name];
    if (field === undefined && fields.optional.includes(name)) continue;
    if (typeof field !== 'string' || field === '' || field.length > MAX_REF_FIELD)
      return `.${name} must be a non-empty string of at most ${MAX_REF_FIELD} characters`;
    ref[name] = field;
  }
  if (kind === 'url' && !hasSafeScheme(ref.url)) return '.url must be relative or use http, https, mailto or tel';
  return ref as unknown as ContentRef;
}
