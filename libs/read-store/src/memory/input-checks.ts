/** Checks of what callers hand the memory read store: bad input is a `ReadStoreInputError`, never a crash. */
import { ReadStoreInputError } from '../errors';
import type { Doc, Filter } from '../read-store.port';
import { cloneIn } from './json-value';

export function checkId(id: unknown, what = '_id'): string {
  if (typeof id !== 'string') throw new ReadStoreInputError(`${what} must be a string`);
  return id;
}

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** MongoDB's rules: a non-empty name without `$` or NUL, not in the reserved `system.` namespace. */
export function checkCollectionName(name: string): string {
  if (
    typeof name !== 'string' ||
    name.length === 0 ||
    name.length > 120 ||
    name.includes('$') ||
    name.includes('\0') ||
    name.startsWith('system.')
  ) {
    throw new ReadStoreInputError(`invalid collection name ${JSON.stringify(String(name).slice(0, 130))}`);
  }
  return name;
}

export function cloneDocument(doc: Doc): Doc {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new ReadStoreInputError('a document must be an object');
  }
  const copy = cloneIn(doc, 'document');
  checkId(copy._id, 'document _id');
  return copy;
}

export function checkUpsertOption(options: { upsert?: boolean } | undefined): boolean {
  if (options === undefined || options === null) return false;
  if (typeof options !== 'object') throw new ReadStoreInputError('update options must be an object');
  return options.upsert === true;
}

export function checkFilter(filter: Filter): Filter {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) {
    throw new ReadStoreInputError('filter must be an object');
  }
  return filter;
}
