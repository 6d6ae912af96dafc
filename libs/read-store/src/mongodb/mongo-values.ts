/** What the MongoDB read store hands the driver, checked (pure), and what it reads back, as plain JSON. */
import type { Document } from 'mongodb';
import { ReadStoreInputError } from '../errors';
import { cloneIn } from '../memory/json-value';
import { parseUpdate } from '../memory/update-engine';
import type { Doc, Filter, IndexSpec, Update } from '../read-store.port';

/**
 * Checks an update document with the memory adapter's rules (so that both adapters refuse the same
 * updates): operators only, known operators, JSON operands, no conflicting paths, no change of `_id`.
 * A `$set` of `_id` must give the document's own id (`id`, when known; otherwise the server checks
 * each document). Returns the JSON copy to send.
 */
export function checkUpdate(update: Update, id?: string): Update {
  const parsed = parseUpdate(update);
  if (id !== undefined) {
    for (const { value, onInsertOnly } of parsed.idValues) {
      if (!onInsertOnly && value !== id) {
        throw new ReadStoreInputError(`the update would modify the immutable field '_id' (${JSON.stringify(id)})`);
      }
    }
  }
  // The copy sent to the server: operands members set to undefined are dropped, as in memory.
  return cloneIn(update, 'update');
}

/** The index name used by `ensureIndex`: MongoDB's default naming, `field_1_other_-1`. */
export function indexName(fields: Record<string, 1 | -1>): string {
  return Object.entries(fields)
    .map(([field, direction]) => `${field}_${direction}`)
    .join('_');
}

export function checkIndexFields(index: IndexSpec): Record<string, 1 | -1> {
  if (!isPlainObject(index) || !isPlainObject(index.fields)) throw new ReadStoreInputError('an index needs its fields');
  const entries = Object.entries(index.fields);
  if (entries.length === 0) throw new ReadStoreInputError('an index needs at least one field');
  for (const [field, direction] of entries) {
    if (field === '' || field.startsWith('$')) throw new ReadStoreInputError(`invalid index field '${field}'`);
    if (direction !== 1 && direction !== -1) {
      throw new ReadStoreInputError(`index field '${field}' must be 1 or -1, got ${JSON.stringify(direction)}`);
    }
  }
  return index.fields;
}

export function checkCollectionName(name: string): void {
  if (typeof name !== 'string' || name === '') throw new ReadStoreInputError('a collection name must be a non-empty string');
  if (name.includes('$') || name.includes('\0')) {
    throw new ReadStoreInputError(`invalid collection name '${name}': '$' and NUL are not allowed`);
  }
  if (name.startsWith('system.')) throw new ReadStoreInputError(`invalid collection name '${name}': 'system.' is reserved`);
}

export function checkId(id: unknown): asserts id is string {
  if (typeof id !== 'string') throw new ReadStoreInputError(`a document id must be a string, got ${typeof id}`);
}

/** A JSON copy of the document (non-JSON values are refused as by the memory adapter). */
export function checkDoc<T extends Doc>(doc: T): T {
  if (!isPlainObject(doc)) throw new ReadStoreInputError('a document must be an object');
  checkId(doc._id);
  return cloneIn(doc, 'document');
}

export function checkFilter(filter: unknown): asserts filter is Filter {
  if (!isPlainObject(filter)) throw new ReadStoreInputError('a filter must be an object');
}

export function toPlainDoc(doc: Document): Doc {
  return toPlain(doc) as Doc;
}

/**
 * Deep copy as plain JSON values: dates become ISO strings, ObjectIds hex strings, BSON numbers
 * numbers, binaries base64. Documents written through this store are JSON already; this keeps
 * driver types out of results even for data written by other means.
 */
export function toPlain(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(toPlain);
  if (value instanceof Date) return value.toISOString();
  const bsonType = (value as { _bsontype?: unknown })._bsontype;
  if (typeof bsonType === 'string') return bsonToPlain(bsonType, value);
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  const result: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) result[key] = toPlain(inner);
  return result;
}

function bsonToPlain(type: string, value: object): unknown {
  switch (type) {
    case 'ObjectId':
    case 'ObjectID':
      return (value as { toHexString(): string }).toHexString();
    case 'Double':
    case 'Int32':
    case 'Long':
    case 'Decimal128':
      return Number(String(value));
    case 'Binary':
      return (value as { toString(encoding: 'base64'): string }).toString('base64');
    default:
      return String(value);
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return isObject(value) && !Array.isArray(value);
}
