import { BLOB_HASH } from '#blob-store/blob-store.port';
import { DomainError } from '#platform/errors';
import { ID_PATTERN } from '#platform/ids';
import { isPlainObject } from '#platform/plain-object';
import type { ContentRef, DocumentNode } from '#document/document.model';
import { COMPUTED_PAGE_TYPES, type ComputedSource, type FileEntry, type PageAttributes, type PageType } from './tree.model';

/**
 * The rules a page or file must satisfy, as pure functions: the editor calls them before changing
 * anything, so a refused operation leaves the batch as it was.
 */

export const PAGE_TYPES: readonly PageType[] = ['document', 'group', 'link'];

/**
 * Group pages sit at the top level only: they title sections of the table of contents, and the
 * platform's page shapes allow a group among the root pages alone (a page's or a group's subpages
 * are documents and links).
 */
export function assertGroupPlacement(type: PageType, parentId: string | null, id: string): void {
  if (type === 'group' && parentId !== null)
    throw DomainError.invalid(`page ${id} is a group page, which sits at the top level only (into must be absent or null)`);
}

/** One path segment: lower-case ASCII words joined by single hyphens. */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** Derived slugs are cut at this length: a paragraph-long title should not make a paragraph-long URL. */
export const SLUG_MAX_LENGTH = 100;
/** The slug of a title that has no ASCII letter or digit left ('日本語', '!!!'). */
export const FALLBACK_SLUG = 'page';

const TITLE_MAX_LENGTH = 1000;
const TEXT_MAX_LENGTH = 10_000;

/**
 * The slug a title gives: accents transliterated (NFKD, then the combining marks dropped), lower
 * case, every run of other characters a single hyphen, cut at `SLUG_MAX_LENGTH`; `page` when
 * nothing is left.
 */
export function slugify(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return trimSlug(slug, SLUG_MAX_LENGTH) || FALLBACK_SLUG;
}

/**
 * `slug` when no sibling has it, else the first free `slug-2`, `slug-3`, … (the base cut so the
 * result stays within `SLUG_MAX_LENGTH`).
 */
export function uniqueSlug(slug: string, taken: ReadonlySet<string>): string {
  if (!taken.has(slug)) return slug;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = (trimSlug(slug, SLUG_MAX_LENGTH - suffix.length) || FALLBACK_SLUG) + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}

function trimSlug(slug: string, max: number): string {
  return slug.length <= max ? slug : slug.slice(0, max).replace(/-+$/, '');
}

export function assertSlug(slug: unknown): asserts slug is string {
  if (typeof slug !== 'string' || !SLUG_PATTERN.test(slug) || slug.length > SLUG_MAX_LENGTH) {
    throw DomainError.invalid(`slug must be lower-case ASCII words joined by hyphens (at most ${SLUG_MAX_LENGTH} characters)`);
  }
}

export function assertPageId(id: unknown, what = 'page id'): asserts id is string {
  if (typeof id !== 'string' || !ID_PATTERN.test(id)) throw DomainError.invalid(`${what} must match ${ID_PATTERN}`);
}

export function assertPageType(type: unknown): asserts type is PageType {
  if (!PAGE_TYPES.includes(type as PageType)) throw DomainError.invalid(`page type must be one of ${PAGE_TYPES.join(', ')}`);
}

export function assertTimestamp(now: unknown): asserts now is string {
  if (typeof now !== 'string' || Number.isNaN(Date.parse(now))) throw DomainError.invalid('now must be an ISO timestamp');
}

/** A zero-based index among `count` siblings, where `count` itself means "last". */
export function assertIndex(at: unknown, count: number): asserts at is number {
  if (!Number.isSafeInteger(at) || (at as number) < 0 || (at as number) > count) {
    throw DomainError.invalid(`at must be an integer from 0 to ${count}`);
  }
}

type AttributeCheck = (value: unknown, name: string) => void;

const isString =
  (max: number): AttributeCheck =>
  (value, name) => {
    if (typeof value !== 'string' || value.length > max) throw DomainError.invalid(`${name} must be a string of at most ${max} characters`);
  };
const isBoolean: AttributeCheck = (value, name) => {
  if (typeof value !== 'boolean') throw DomainError.invalid(`${name} must be a boolean`);
};
const isObject: AttributeCheck = (value, name) => {
  if (!isPlainObject(value)) throw DomainError.invalid(`${name} must be an object`);
};
const isStringRecord: AttributeCheck = (value, name) => assertStringRecord(value, name);
const isComputed: AttributeCheck = (value, name) => assertComputed(value, name);

/** Every attribute a write may set, with its check; the keys of `PageAttributes` exactly. */
const ATTRIBUTE_CHECKS: Record<keyof PageAttributes, AttributeCheck> = {
  title: isString(TITLE_MAX_LENGTH),
  slug: (value) => assertSlug(value),
  emoji: isString(64),
  icon: isString(256),
  description: isString(TEXT_MAX_LENGTH),
  linkTitle: isString(TITLE_MAX_LENGTH),
  hidden: isBoolean,
  noIndex: isBoolean,
  noRobotsIndex: isBoolean,
  condition: isString(TEXT_MAX_LENGTH),
  layout: isObject,
  cover: isObject,
  variables: isStringRecord,
  computed: isComputed,
};
export const ATTRIBUTE_NAMES = Object.keys(ATTRIBUTE_CHECKS) as Array<keyof PageAttributes>;

/**
 * Checks attributes a write gives: only known names, each of its type. `undefined` means "remove"
 * in an update, which `title` (always required) refuses; `slug` is checked by the caller, which
 * knows the page type.
 */
export function assertAttributes(attributes: unknown, partial: boolean): asserts attributes is Partial<PageAttributes> {
  if (!isPlainObject(attributes)) throw DomainError.invalid('attributes must be an object');
  for (const [name, value] of Object.entries(attributes)) {
    const check = Object.hasOwn(ATTRIBUTE_CHECKS, name) ? ATTRIBUTE_CHECKS[name as keyof PageAttributes] : undefined;
    if (!check) throw DomainError.invalid(`unknown page attribute ${name}`);
    if (value === undefined) {
      if (name === 'title') throw DomainError.invalid('title cannot be removed');
      continue;
    }
    if (name !== 'slug') check(value, name);
  }
  if (!partial && typeof attributes.title !== 'string') throw DomainError.invalid('title is required');
}

export function assertStringRecord(value: unknown, name: string): asserts value is Record<string, string> {
  if (!isPlainObject(value)) throw DomainError.invalid(`${name} must be an object of strings`);
  for (const [key, item] of Object.entries(value)) {
    if (key === '' || key.length > 256) throw DomainError.invalid(`${name} keys must be 1 to 256 characters`);
    if (typeof item !== 'string' || item.length > TEXT_MAX_LENGTH) throw DomainError.invalid(`${name}.${key} must be a string`);
  }
}

/** Bounds of a computed page's `props`: nesting, values (objects, arrays and scalars) and text. */
export const COMPUTED_PROPS_MAX_DEPTH = 8;
export const COMPUTED_PROPS_MAX_VALUES = 1000;
export const COMPUTED_PROPS_MAX_STRING = 2048;
/** What `builtin:openapi` narrows by: at most this many tags or paths. */
export const COMPUTED_FILTER_MAX = 100;

/**
 * A computed source: `{ type, dependencies: { spec: { ref: { kind: 'openapi', spec } } }, props }`.
 * `type` is one of `COMPUTED_PAGE_TYPES`; the spec's slug follows the OpenAPI slug rules; `props`
 * is a JSON object within the bounds above, with no member named like a prototype member, and for
 * `builtin:openapi` its `tags` and `paths`, when given, are lists of strings.
 */
export function assertComputed(value: unknown, name = 'computed'): asserts value is ComputedSource {
  if (!isPlainObject(value))
    throw DomainError.invalid(`${name} must be { type, dependencies: { spec: { ref: { kind: 'openapi', spec } } }, props }`);
  for (const key of Object.keys(value))
    if (!['type', 'dependencies', 'props'].includes(key))
      throw DomainError.invalid(`${name}.${key.slice(0, 64)} is not a member of a computed source`);
  if (!COMPUTED_PAGE_TYPES.includes(value.type as ComputedSource['type']))
    throw DomainError.invalid(`${name}.type must be one of ${COMPUTED_PAGE_TYPES.join(', ')}`);
  const dependencies = value.dependencies;
  if (
    !isPlainObject(dependencies) ||
    Object.keys(dependencies).length !== 1 ||
    !isPlainObject(dependencies.spec) ||
    Object.keys(dependencies.spec).length !== 1
  ) {
    throw DomainError.invalid(`${name}.dependencies must be { spec: { ref: { kind: 'openapi', spec } } }`);
  }
  const ref = dependencies.spec.ref;
  if (
    !isPlainObject(ref) ||
    ref.kind !== 'openapi' ||
    Object.keys(ref).length !== 2 ||
    typeof ref.spec !== 'string' ||
    !SLUG_PATTERN.test(ref.spec) ||
    ref.spec.length > SLUG_MAX_LENGTH
  ) {
    throw DomainError.invalid(
      `${name}.dependencies.spec.ref must be { kind: 'openapi', spec } with the slug of a spec (lower-case ASCII words joined by hyphens, at most ${SLUG_MAX_LENGTH} characters)`,
    );
  }
  if (!isPlainObject(value.props)) throw DomainError.invalid(`${name}.props must be an object`);
  assertPropsValue(value.props, `${name}.props`, 1, { left: COMPUTED_PROPS_MAX_VALUES });
  for (const filter of ['tags', 'paths']) {
    const list = value.props[filter];
    if (list === undefined) continue;
    if (!Array.isArray(list) || list.length > COMPUTED_FILTER_MAX || !list.every((item) => typeof item === 'string' && item !== '')) {
      throw DomainError.invalid(`${name}.props.${filter} must be a list of at most ${COMPUTED_FILTER_MAX} non-empty strings`);
    }
  }
}

function assertPropsValue(value: unknown, path: string, depth: number, budget: { left: number }): void {
  if (--budget.left < 0) throw DomainError.invalid(`computed props may hold at most ${COMPUTED_PROPS_MAX_VALUES} values`);
  if (value === null || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw DomainError.invalid(`${path} must be a finite number`);
    return;
  }
  if (typeof value === 'string') {
    if (value.length > COMPUTED_PROPS_MAX_STRING)
      throw DomainError.invalid(`${path} must be at most ${COMPUTED_PROPS_MAX_STRING} characters`);
    return;
  }
  const nested = Array.isArray(value) || isPlainObject(value);
  if (!nested) throw DomainError.invalid(`${path} must be JSON: an object, a list, a string, a number, a boolean or null`);
  if (depth > COMPUTED_PROPS_MAX_DEPTH) throw DomainError.invalid(`${path} nests more than ${COMPUTED_PROPS_MAX_DEPTH} levels deep`);
  if (Array.isArray(value)) {
    value.forEach((item, index) => assertPropsValue(item, `${path}[${index}]`, depth + 1, budget));
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    if (key === '' || key.length > 256) throw DomainError.invalid(`${path} keys must be 1 to 256 characters`);
    if (key in Object.prototype) throw DomainError.invalid(`${path} may not have a member named ${JSON.stringify(key)}`);
    assertPropsValue(item, `${path}.${key}`, depth + 1, budget);
  }
}

/** A page body, checked for its outer shape; the blocks are the document context's business. */
export function assertDocument(document: unknown): asserts document is DocumentNode {
  const body = document as Partial<DocumentNode> | null;
  if (!isPlainObject(body) || body.object !== 'document' || !isPlainObject(body.data) || !Array.isArray(body.nodes)) {
    throw DomainError.invalid("document must be { object: 'document', data: {...}, nodes: [...] }");
  }
}

/** The body of a document page created without one. */
export function emptyDocument(): DocumentNode {
  return { object: 'document', data: {}, nodes: [] };
}

const CONTENT_REF_FIELDS: Record<ContentRef['kind'], readonly string[]> = {
  page: ['page'],
  file: ['file'],
  anchor: ['anchor'],
  url: ['url'],
  space: ['space'],
  collection: ['collection'],
  user: ['user'],
  openapi: ['spec'],
};

export function assertContentRef(target: unknown): asserts target is ContentRef {
  const required =
    isPlainObject(target) && typeof target.kind === 'string' && Object.hasOwn(CONTENT_REF_FIELDS, target.kind)
      ? CONTENT_REF_FIELDS[target.kind as ContentRef['kind']]
      : undefined;
  if (!isPlainObject(target) || !required)
    throw DomainError.invalid(`target must be a content reference (kind: ${Object.keys(CONTENT_REF_FIELDS).join(', ')})`);
  for (const field of required) {
    if (typeof target[field] !== 'string') throw DomainError.invalid(`a ${String(target.kind)} target needs ${field}`);
  }
}

export function assertHref(href: unknown): asserts href is string {
  if (typeof href !== 'string' || href === '' || href.length > 4096) throw DomainError.invalid('href must be a non-empty string');
}

export function assertFileEntry(entry: unknown): asserts entry is FileEntry {
  const file = entry as Partial<FileEntry> | null;
  if (!isPlainObject(file)) throw DomainError.invalid('file must be an object');
  assertPageId(file.id, 'file id');
  if (typeof file.name !== 'string' || file.name === '' || file.name.length > 1024)
    throw DomainError.invalid('file name must be a non-empty string');
  if (typeof file.contentType !== 'string' || file.contentType === '')
    throw DomainError.invalid('file contentType must be a non-empty string');
  if (!Number.isSafeInteger(file.size) || (file.size as number) < 0) throw DomainError.invalid('file size must be a non-negative integer');
  if (typeof file.hash !== 'string' || !BLOB_HASH.test(file.hash)) throw DomainError.invalid('file hash must be 64 lower-case hex digits');
  if (file.dimensions !== undefined) {
    const { width, height } = (file.dimensions ?? {}) as { width?: unknown; height?: unknown };
    if (!Number.isSafeInteger(width) || !Number.isSafeInteger(height) || (width as number) <= 0 || (height as number) <= 0) {
      throw DomainError.invalid('file dimensions must be positive integers');
    }
  }
  assertTimestamp(file.createdAt);
}

/** A copy without the members whose value is `undefined` (an update uses them to remove attributes). */
export function withoutUndefined<T extends object>(value: T): T {
  const copy = {} as Record<string, unknown>;
  for (const [key, item] of Object.entries(value)) if (item !== undefined) copy[key] = item;
  return copy as T;
}
