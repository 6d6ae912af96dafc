import { DomainError } from '#platform/errors';
import { ID_SHAPES } from '#platform/ids';
import { assertComputed } from './tree/page-rules';
import type { ContentRef } from '#document/document.model';
import type { ComputedSource, PageAttributes } from './tree/tree.model';

/**
 * The batch write (docs/content.md, "Writing content"): `{ changes: Change[] }`, 1..50 changes
 * applied all or nothing as one revision. Parsed here by hand rather than by DTO classes: a change
 * is a union told apart by `operation`, and every member is checked with its path in the message.
 */
export const MAX_CHANGES = 50;
export const MAX_FILES_PER_CHANGE = 20;
/** Largest base64 file of a batch, decoded. */
export const MAX_INLINE_FILE_BYTES = 1024 * 1024;
/** Largest markdown body of one page. */
export const MAX_MARKDOWN_CHARS = 1_000_000;

export type PageBody = { markdown: string } | { document: unknown };

/** A page named by a change: an existing page id, or the `ref` of a page inserted earlier in the same batch. */
export type PageName = string;

export type Change =
  | {
      operation: 'insert_page';
      body?: PageBody;
      type: 'document' | 'group';
      attributes: Partial<PageAttributes>;
      into?: PageName | null;
      at?: number;
      ref?: string;
    }
  | {
      operation: 'update_page';
      page: PageName;
      body?: PageBody;
      attributes: Partial<PageAttributes>;
      into?: PageName | null;
      at?: number;
      moves: boolean;
    }
  | { operation: 'delete_page'; page: PageName }
  | { operation: 'revert_page'; page: PageName; revision?: string }
  | { operation: 'insert_files'; files: FileUpload[] }
  /** Extension: the space's variables, which `evaluated=true` substitutes in bodies. */
  | { operation: 'update_variables'; variables: Record<string, string> };

export interface FileUpload {
  name: string;
  contentType?: string;
  source: { base64: string } | { url: string };
  ref?: string;
}

const REF = /^[A-Za-z0-9_-]{1,64}$/;
const CONTENT_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}(?:\s*;\s*[a-z0-9-]+=[^;\s]{1,64}){0,3}$/i;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

class Reader {
  constructor(
    private readonly value: Record<string, unknown>,
    readonly path: string,
  ) {}

  fail(member: string, rule: string): never {
    throw DomainError.invalid(`${this.path}.${member} ${rule}`);
  }

  known(members: readonly string[]): void {
    for (const key of Object.keys(this.value)) if (!members.includes(key)) this.fail(key, 'is not a member of this operation');
  }

  has(member: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.value, member) && this.value[member] !== undefined;
  }

  raw(member: string): unknown {
    return this.has(member) ? this.value[member] : undefined;
  }

  string(member: string, options: { max: number; min?: number; pattern?: RegExp; required?: boolean }): string | undefined {
    const value = this.raw(member);
    if (value === undefined) return options.required ? this.fail(member, 'is required') : undefined;
    if (typeof value !== 'string') this.fail(member, 'must be a string');
    if (value.length < (options.min ?? 0) || value.length > options.max)
      this.fail(member, `must be ${options.min ?? 0}..${options.max} characters`);
    if (options.pattern && !options.pattern.test(value)) this.fail(member, `must match ${options.pattern.source}`);
    return value;
  }

  boolean(member: string): boolean | undefined {
    const value = this.raw(member);
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') this.fail(member, 'must be a boolean');
    return value;
  }

  index(member: string): number | undefined {
    const value = this.raw(member);
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 100_000)
      this.fail(member, 'must be a non-negative integer');
    return value;
  }

  pageName(member: string, required: boolean): PageName | undefined {
    const value = this.raw(member);
    if (value === undefined) return required ? this.fail(member, 'is required') : undefined;
    if (typeof value !== 'string' || !(ID_SHAPES.entity.test(value) || REF.test(value)))
      this.fail(member, 'must be a page id or the ref of a page inserted earlier in the batch');
    return value;
  }

  /** `null` (the root) is kept apart from absent (unchanged). */
  parent(member: string): PageName | null | undefined {
    if (this.has(member) && this.value[member] === null) return null;
    return this.pageName(member, false);
  }

  body(member: string): PageBody | undefined {
    const value = this.raw(member);
    if (value === undefined) return undefined;
    if (!isRecord(value)) this.fail(member, 'must be { markdown } or { document }');
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === 'markdown') {
      if (typeof value.markdown !== 'string' || value.markdown.length > MAX_MARKDOWN_CHARS)
        this.fail(`${member}.markdown`, `must be a string of at most ${MAX_MARKDOWN_CHARS} characters`);
      return { markdown: value.markdown };
    }
    if (keys.length === 1 && keys[0] === 'document') return { document: value.document };
    // A bare JSON document is accepted as well: `{ object: 'document', nodes: [...] }`.
    if (value.object === 'document') return { document: value };
    return this.fail(member, 'must be { markdown } or { document }');
  }

  /**
   * `attributes` of a page change; `update` lets `computed: null` remove the page's computed
   * source, and an empty `emoji`, `icon` or `condition` remove those (the member is then present
   * with the value `undefined`, which the editor removes).
   */
  attributes(update = false): Partial<PageAttributes> {
    const attributes: Partial<PageAttributes> = {};
    const title = this.string('title', { min: 1, max: 255 });
    if (title !== undefined) {
      if (title.trim() === '') this.fail('title', 'must not be blank');
      attributes.title = title;
    }
    const slug = this.string('slug', { min: 1, max: 100, pattern: /^[a-z0-9]+(?:-[a-z0-9]+)*$/ });
    if (slug !== undefined) attributes.slug = slug;
    // As the platform has it, an empty emoji, icon or condition removes it (an insert then has none).
    for (const [member, max] of [
      ['emoji', 32],
      ['icon', 100],
      ['condition', 1024],
    ] as const) {
      const value = this.string(member, { max });
      if (value === '') {
        if (update) attributes[member] = undefined;
      } else if (value !== undefined) attributes[member] = value;
    }
    const description = this.string('description', { max: 1000 });
    if (description !== undefined) attributes.description = description;
    for (const member of ['hidden', 'noIndex', 'noRobotsIndex'] as const) {
      const value = this.boolean(member);
      if (value !== undefined) attributes[member] = value;
    }
    const variables = this.variables('variables');
    if (variables !== undefined) attributes.variables = variables;
    if (Object.prototype.hasOwnProperty.call(this.value, 'computed') && this.value.computed === null) {
      if (update) attributes.computed = undefined;
    } else {
      const computed = this.computed('computed');
      if (computed !== undefined) attributes.computed = computed;
    }
    return attributes;
  }

  /** A computed source (`props` defaults to `{}`), checked by the page rules with this member's path in the message. */
  computed(member: string): ComputedSource | undefined {
    const value = this.raw(member);
    if (value === undefined) return undefined;
    const source = isRecord(value) && !Object.prototype.hasOwnProperty.call(value, 'props') ? { ...value, props: {} } : value;
    assertComputed(source, `${this.path}.${member}`);
    return source;
  }

  /** A map of variable names (`^[A-Za-z_][A-Za-z0-9_]{0,63}$`) to strings, at most 100 of them. */
  variables(member: string): Record<string, string> | undefined {
    const value = this.raw(member);
    if (value === undefined) return undefined;
    if (!isRecord(value)) this.fail(member, 'must be an object of strings');
    const entries = Object.entries(value);
    if (entries.length > 100) this.fail(member, 'may hold at most 100 variables');
    const variables: Record<string, string> = {};
    for (const [name, text] of entries) {
      if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name) || name in Object.prototype)
        this.fail(member, `names must match ^[A-Za-z_][A-Za-z0-9_]{0,63}$, not ${JSON.stringify(name.slice(0, 70))}`);
      if (typeof text !== 'string' || text.length > 10_000) this.fail(`${member}.${name}`, 'must be a string of at most 10000 characters');
      Object.defineProperty(variables, name, { value: text, enumerable: true, writable: true, configurable: true });
    }
    return variables;
  }
}

const ATTRIBUTES = [
  'title',
  'slug',
  'emoji',
  'icon',
  'description',
  'hidden',
  'noIndex',
  'noRobotsIndex',
  'condition',
  'variables',
  'computed',
];

/** The batch, checked: 400 naming the first member that is wrong. */
export function parseChanges(value: unknown): Change[] {
  if (!Array.isArray(value) || value.length < 1 || value.length > MAX_CHANGES)
    throw DomainError.invalid(`changes must be a list of 1..${MAX_CHANGES} changes`);
  const refs = new Set<string>();
  return value.map((entry, index): Change => {
    const path = `changes[${index}]`;
    if (!isRecord(entry)) throw DomainError.invalid(`${path} must be an object`);
    const read = new Reader(entry, path);
    switch (entry.operation) {
      case 'insert_page': {
        read.known(['operation', 'document', 'type', 'into', 'at', 'ref', ...ATTRIBUTES]);
        const typeName = read.string('type', { max: 16 }) ?? 'document';
        const type = typeName === 'group' ? 'group' : typeName === 'document' ? 'document' : read.fail('type', 'must be document or group');
        const ref = read.string('ref', { min: 1, max: 64, pattern: REF });
        if (ref !== undefined) {
          if (refs.has(ref)) read.fail('ref', 'is used twice in the batch');
          refs.add(ref);
        }
        const body = read.body('document');
        if (type === 'group' && body !== undefined) read.fail('document', 'is not allowed on a group page');
        return {
          operation: 'insert_page',
          type,
          ...(body ? { body } : {}),
          attributes: read.attributes(),
          into: read.parent('into'),
          at: read.index('at'),
          ...(ref ? { ref } : {}),
        };
      }
      case 'update_page': {
        read.known(['operation', 'page', 'document', 'into', 'at', ...ATTRIBUTES]);
        const body = read.body('document');
        const into = read.parent('into');
        const at = read.index('at');
        return {
          operation: 'update_page',
          page: read.pageName('page', true)!,
          ...(body ? { body } : {}),
          attributes: read.attributes(true),
          into,
          at,
          moves: read.has('into') || at !== undefined,
        };
      }
      case 'delete_page':
        read.known(['operation', 'page']);
        return { operation: 'delete_page', page: read.pageName('page', true)! };
      case 'revert_page': {
        read.known(['operation', 'page', 'revision']);
        const revision = read.string('revision', { max: 20, pattern: ID_SHAPES.entity });
        return { operation: 'revert_page', page: read.pageName('page', true)!, ...(revision ? { revision } : {}) };
      }
      case 'insert_files': {
        read.known(['operation', 'files']);
        const files: unknown[] = Array.isArray(entry.files) ? entry.files : [];
        if (!Array.isArray(entry.files) || files.length < 1 || files.length > MAX_FILES_PER_CHANGE)
          read.fail('files', `must be a list of 1..${MAX_FILES_PER_CHANGE} files`);
        return {
          operation: 'insert_files',
          files: files.map((file, fileIndex): FileUpload => {
            if (!isRecord(file)) throw DomainError.invalid(`${path}.files[${fileIndex}] must be an object`);
            const one = new Reader(file, `${path}.files[${fileIndex}]`);
            one.known(['name', 'contentType', 'base64', 'url', 'ref']);
            const name = one.string('name', { min: 1, max: 255, required: true })!;
            if (/[/\\]/.test(name) || name === '.' || name === '..') one.fail('name', 'must be a file name without folders');
            const contentType = one.string('contentType', { max: 255, pattern: CONTENT_TYPE });
            const ref = one.string('ref', { min: 1, max: 64, pattern: REF });
            if (ref !== undefined) {
              if (refs.has(ref)) one.fail('ref', 'is used twice in the batch');
              refs.add(ref);
            }
            const base64 = one.string('base64', { max: Math.ceil((MAX_INLINE_FILE_BYTES * 4) / 3) + 4 });
            const url = one.string('url', { max: 2048 });
            if ((base64 === undefined) === (url === undefined)) one.fail('base64', 'or url is required, not both');
            if (base64 !== undefined && !/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) one.fail('base64', 'must be base64');
            return {
              name,
              ...(contentType ? { contentType } : {}),
              source: base64 !== undefined ? { base64 } : { url: url! },
              ...(ref ? { ref } : {}),
            };
          }),
        };
      }
      case 'update_variables':
        read.known(['operation', 'variables']);
        return { operation: 'update_variables', variables: read.variables('variables') ?? read.fail('variables', 'is required') };
      default:
        throw DomainError.invalid(
          `${path}.operation must be one of insert_page, update_page, delete_page, revert_page, insert_files, update_variables`,
        );
    }
  });
}

/** A page or file the batch inserts with a `ref`, and the id it gets. */
export interface BatchRef {
  kind: 'page' | 'file';
  id: string;
}

/** The ids of the pages and files the batch names by ref: given once, so every attempt at the write uses the same. */
export function batchRefs(changes: readonly Change[], newId: () => string): Map<string, BatchRef> {
  const refs = new Map<string, BatchRef>();
  for (const change of changes) {
    if (change.operation === 'insert_page' && change.ref) refs.set(change.ref, { kind: 'page', id: newId() });
    if (change.operation === 'insert_files')
      for (const file of change.files) if (file.ref) refs.set(file.ref, { kind: 'file', id: newId() });
  }
  return refs;
}

/** Links of a batch's markdown to refs (`ref`, `./ref.md#anchor`) as links to the pages and files they name. */
export function batchLinkResolver(refs: ReadonlyMap<string, BatchRef>): (href: string) => ContentRef | null {
  return (href) => {
    const match = /^(?:\.\/)?([A-Za-z0-9_-]{1,64})(?:\.md)?(#.*)?$/.exec(href);
    const ref = match ? refs.get(match[1]) : undefined;
    if (!ref) return null;
    if (ref.kind === 'file') return { kind: 'file', file: ref.id };
    return match![2] ? { kind: 'anchor', anchor: match![2].slice(1), page: ref.id } : { kind: 'page', page: ref.id };
  };
}
