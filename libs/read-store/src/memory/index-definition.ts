/** Declared indexes of the memory read store: their definitions, and the keys documents take in unique ones. */
import { DuplicateKeyError, ReadStoreInputError } from '../errors';
import type { Doc, IndexSpec } from '../read-store.port';
import { cloneIn } from './json-value';
import { resolvePath, splitPath } from './paths';
import { compileFilter, type CompiledFilter } from './compiled-filter';

export interface IndexDefinition {
  /** Identity of the index: its fields with directions. */
  readonly key: string;
  /** Canonical form of the whole spec, to tell an idempotent repeat from a conflicting one. */
  readonly canonical: string;
  /** The fields joined by ',' (the name `DuplicateKeyError` reports). */
  readonly name: string;
  readonly fields: string[];
  readonly directions: (1 | -1)[];
  readonly paths: string[][];
  readonly unique: boolean;
  readonly partial?: CompiledFilter;
}

export interface UniqueIndex {
  readonly definition: IndexDefinition;
  /** Canonical key → `_id` of the document holding it. */
  readonly entries: Map<string, string>;
}

/** The keys a document takes in a unique index, or null when a partial filter leaves it out. */
export function indexKeys(definition: IndexDefinition, doc: Doc): string[] | null {
  if (definition.partial && !definition.partial.test(doc)) return null;
  const { paths } = definition;
  if (paths.length === 1) {
    const value = resolvePath(doc, paths[0]);
    if (!Array.isArray(value)) return [JSON.stringify([value === undefined ? null : value])];
  }
  // Compound and/or multikey: one key per combination of array elements (MongoDB's multikey rule).
  let tuples: unknown[][] = [[]];
  for (const path of paths) {
    const value = resolvePath(doc, path);
    const choices = Array.isArray(value) ? (value.length > 0 ? dedupe(value) : [[]]) : [value === undefined ? null : value];
    const next: unknown[][] = [];
    for (const tuple of tuples) for (const choice of choices) next.push([...tuple, choice]);
    tuples = next;
  }
  return [...new Set(tuples.map((tuple) => JSON.stringify(tuple)))];
}

function dedupe(values: unknown[]): unknown[] {
  const seen = new Map<string, unknown>();
  for (const value of values) seen.set(JSON.stringify(value), value);
  return [...seen.values()];
}

export function duplicateKey(collection: string, definition: IndexDefinition, key: string): DuplicateKeyError {
  const values = JSON.parse(key) as unknown[];
  const keyValue: Record<string, unknown> = {};
  definition.fields.forEach((field, i) => (keyValue[field] = values[i]));
  return new DuplicateKeyError(collection, definition.name, keyValue);
}

export function indexDefinition(index: IndexSpec): IndexDefinition {
  if (index === null || typeof index !== 'object') throw new ReadStoreInputError('index must be an object');
  const { fields, unique, partial } = index;
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields) || Object.keys(fields).length === 0) {
    throw new ReadStoreInputError('index fields must name at least one field');
  }
  const names = Object.keys(fields);
  for (const field of names) {
    splitPath(field, 'index field');
    if (field.startsWith('$')) throw new ReadStoreInputError(`invalid index field '${field}'`);
    const direction = (fields as Record<string, unknown>)[field];
    if (direction !== 1 && direction !== -1) throw new ReadStoreInputError(`index direction of '${field}' must be 1 or -1`);
  }
  if (unique !== undefined && typeof unique !== 'boolean') throw new ReadStoreInputError('index unique must be a boolean');
  let partialQuery: CompiledFilter | undefined;
  if (partial !== undefined) {
    checkPartialFilter(partial);
    partialQuery = compileFilter(cloneIn(partial, 'partial filter')) ?? undefined;
  }
  const key = JSON.stringify(names.map((field) => [field, fields[field]]));
  return {
    key,
    canonical: JSON.stringify([key, unique === true, partial ?? null]),
    name: names.join(','),
    fields: names,
    directions: names.map((field) => fields[field]),
    paths: names.map((field) => splitPath(field)),
    unique: unique === true,
    partial: partialQuery,
  };
}

/** Partial filters may use equality (including `null` for null-or-missing), `$eq`, `$exists` and `$and`. */
function checkPartialFilter(filter: unknown): void {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) {
    throw new ReadStoreInputError('a partial index filter must be an object');
  }
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and') {
      if (!Array.isArray(value) || value.length === 0) throw new ReadStoreInputError('$and in a partial filter needs a list');
      value.forEach(checkPartialFilter);
      continue;
    }
    if (key.startsWith('$')) throw new ReadStoreInputError(`${key} is not supported in a partial index filter`);
    splitPath(key, 'partial filter');
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const operators = Object.keys(value);
      if (operators.some((op) => op.startsWith('$'))) {
        for (const op of operators) {
          const operand = (value as Record<string, unknown>)[op];
          if (op === '$exists' && typeof operand === 'boolean') continue;
          if (op === '$eq') continue;
          throw new ReadStoreInputError(`${op} is not supported in a partial index filter (equality and $exists only)`);
        }
      }
    }
  }
}
