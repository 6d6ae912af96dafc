/**
 * MongoDB update operators applied in memory. The operators projections use on every event
 * (`$set`, `$unset`, `$inc`, `$push`, `$addToSet`, `$pull` of a value, `$setOnInsert`) on paths
 * through objects run here directly; everything else (`$min`, `$max`, `$mul`, `$rename`, `$pop`,
 * `$pullAll`, `$bit`, `$push` modifiers, `$pull` conditions, paths through arrays, `$[]`) is
 * delegated to mingo's `update`, whose result is checked to still be JSON.
 */
import { update as mingoUpdate } from 'mingo/updater';
import type { Doc, Update } from '../read-store.port';
import { ReadStoreInputError } from '../errors';
import { cloneIn, cloneOut, jsonEqual } from './json-value';
import { splitPath } from './paths';

const OPERATORS = new Set([
  '$set',
  '$unset',
  '$inc',
  '$mul',
  '$min',
  '$max',
  '$rename',
  '$push',
  '$addToSet',
  '$pull',
  '$pullAll',
  '$pop',
  '$bit',
  '$setOnInsert',
]);
const FAST_OPERATORS = new Set(['$set', '$unset', '$inc', '$push', '$addToSet', '$pull', '$setOnInsert']);

interface Operation {
  readonly operator: string;
  readonly path: string;
  readonly segments: string[];
  /** The operand; for `$push`/`$addToSet` the list of items to add. */
  readonly value: unknown;
}

export interface ParsedUpdate {
  /** Every operation except those on `_id` (checked separately). */
  readonly operations: Operation[];
  /** Whether every operation can take the direct path (otherwise the whole update goes to mingo). */
  readonly fast: boolean;
  /** Values `$set`/`$setOnInsert` give `_id`; each must equal the document's `_id`. */
  readonly idValues: Array<{ value: unknown; onInsertOnly: boolean }>;
}

/** Signals that a path runs through an array: the update is redone by mingo. */
class NeedsMingo extends Error {}

/**
 * Checks an update document and copies its operands (so that the caller cannot change them later).
 * Refuses replacement documents, unknown operators, non-JSON operands, conflicting paths and any
 * change of `_id`.
 */
export function parseUpdate(update: Update): ParsedUpdate {
  if (update === null || typeof update !== 'object' || Array.isArray(update)) {
    throw new ReadStoreInputError('update must be an object of update operators');
  }
  const operators = Object.keys(update);
  if (operators.length === 0) throw new ReadStoreInputError('update must contain at least one update operator');
  const operations: Operation[] = [];
  const idValues: Array<{ value: unknown; onInsertOnly: boolean }> = [];
  const paths: string[] = [];
  let fast = true;
  for (const operator of operators) {
    if (!operator.startsWith('$')) {
      throw new ReadStoreInputError(
        `update must only contain update operators ('${operator}' is a field): use put() to replace a document`,
      );
    }
    if (operator === '$currentDate') {
      throw new ReadStoreInputError('$currentDate is not supported: $set an ISO 8601 string taken from the event');
    }
    if (!OPERATORS.has(operator)) throw new ReadStoreInputError(`unknown update operator '${operator}'`);
    const rawOperand = (update as Record<string, unknown>)[operator];
    if (rawOperand === null || typeof rawOperand !== 'object' || Array.isArray(rawOperand)) {
      throw new ReadStoreInputError(`the operand of ${operator} must be an object of field → value`);
    }
    const operand = cloneIn(rawOperand as Record<string, unknown>, operator);
    for (const path of Object.keys(operand)) {
      const segments = splitPath(path, `${operator}`);
      const value = operand[path];
      if (segments[0] === '_id') {
        if ((operator === '$set' || operator === '$setOnInsert') && segments.length === 1) {
          idValues.push({ value, onInsertOnly: operator === '$setOnInsert' });
          paths.push(path);
          continue;
        }
        throw new ReadStoreInputError(`${operator} on '${path}' would modify the immutable field '_id'`);
      }
      if (operator === '$rename') {
        if (typeof value !== 'string') throw new ReadStoreInputError(`$rename target of '${path}' must be a string`);
        const target = splitPath(value, '$rename target');
        if (target[0] === '_id') throw new ReadStoreInputError(`$rename to '${value}' would modify the immutable field '_id'`);
        paths.push(value);
      }
      paths.push(path);
      let item = value;
      if (operator === '$inc' && typeof value !== 'number') {
        throw new ReadStoreInputError(`$inc of '${path}' needs a number, got ${JSON.stringify(value)}`);
      }
      if (fast && (!FAST_OPERATORS.has(operator) || segments.some((s) => s.startsWith('$')))) fast = false;
      if (operator === '$push' || operator === '$addToSet') {
        const list = eachItems(operator, path, value);
        if (list === null) fast = false;
        else item = list;
      } else if (operator === '$pull' && value !== null && typeof value === 'object') {
        fast = false;
      }
      operations.push({ operator, path, segments, value: item });
    }
  }
  checkConflicts(paths);
  return { operations, fast, idValues };
}

/** The items `$push`/`$addToSet` add, or null when modifiers other than `$each` need mingo. */
function eachItems(operator: string, path: string, value: unknown): unknown[] | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [value];
  const keys = Object.keys(value);
  if (!keys.some((k) => k.startsWith('$'))) return [value];
  const each = (value as Record<string, unknown>).$each;
  if (!Array.isArray(each)) throw new ReadStoreInputError(`${operator} modifiers on '${path}' need an $each array`);
  if (operator === '$addToSet' && keys.length > 1) {
    throw new ReadStoreInputError(`$addToSet on '${path}' only supports the $each modifier`);
  }
  return keys.length === 1 ? each : null;
}

function checkConflicts(paths: string[]): void {
  if (paths.length < 2) return;
  for (let i = 0; i < paths.length; i++) {
    for (let j = i + 1; j < paths.length; j++) {
      const [a, b] = paths[i].length <= paths[j].length ? [paths[i], paths[j]] : [paths[j], paths[i]];
      if (a === b || b.startsWith(`${a}.`)) {
        throw new ReadStoreInputError(`updating the path '${b}' would create a conflict at '${a}'`);
      }
    }
  }
}

/**
 * The document `before` with the update applied, as a new object (`before` is never modified).
 * `inserting` tells an upsert that creates the document, which applies `$setOnInsert`.
 */
export function applyUpdate(before: Doc, parsed: ParsedUpdate, inserting: boolean): Doc {
  for (const { value, onInsertOnly } of parsed.idValues) {
    if ((!onInsertOnly || inserting) && value !== before._id) {
      throw new ReadStoreInputError(`the update would modify the immutable field '_id' (${JSON.stringify(before._id)})`);
    }
  }
  if (parsed.fast) {
    const working = cloneOut(before);
    try {
      for (const operation of parsed.operations) applyOperation(working, operation, inserting);
      return working;
    } catch (error) {
      if (!(error instanceof NeedsMingo)) throw error;
    }
  }
  return applyWithMingo(before, parsed, inserting);
}

const hasOwn = Object.prototype.hasOwnProperty;

function applyOperation(doc: Doc, operation: Operation, inserting: boolean): void {
  const { operator, segments, path } = operation;
  if (operator === '$setOnInsert' && !inserting) return;
  const creates = operator !== '$unset' && operator !== '$pull';
  let parent: Record<string, unknown> = doc;
  const last = segments.length - 1;
  for (let i = 0; i < last; i++) {
    const segment = segments[i];
    const next = hasOwn.call(parent, segment) ? parent[segment] : undefined;
    if (next === undefined) {
      if (!creates) return;
      const created: Record<string, unknown> = {};
      parent[segment] = created;
      parent = created;
    } else if (next !== null && typeof next === 'object') {
      if (Array.isArray(next)) throw new NeedsMingo();
      parent = next as Record<string, unknown>;
    } else {
      if (!creates) return;
      throw new ReadStoreInputError(
        `cannot create field '${segments[i + 1]}' of '${path}': '${segments.slice(0, i + 1).join('.')}' is ${JSON.stringify(next)}`,
      );
    }
  }
  const key = segments[last];
  const current = hasOwn.call(parent, key) ? parent[key] : undefined;
  switch (operator) {
    case '$set':
    case '$setOnInsert':
      parent[key] = cloneOut(operation.value);
      return;
    case '$unset':
      if (current !== undefined) delete parent[key];
      return;
    case '$inc': {
      const by = operation.value as number;
      if (current === undefined) {
        parent[key] = by;
        return;
      }
      if (typeof current !== 'number') {
        throw new ReadStoreInputError(`cannot apply $inc to '${path}', which is not a number`);
      }
      const result = current + by;
      if (!Number.isFinite(result)) throw new ReadStoreInputError(`$inc of '${path}' overflows`);
      parent[key] = result;
      return;
    }
    case '$push': {
      const items = operation.value as unknown[];
      if (current === undefined) {
        parent[key] = cloneOut(items);
        return;
      }
      if (!Array.isArray(current)) throw new ReadStoreInputError(`cannot apply $push to '${path}', which is not an array`);
      for (const item of items) current.push(cloneOut(item));
      return;
    }
    case '$addToSet': {
      const items = operation.value as unknown[];
      let target: unknown[];
      if (current === undefined) {
        target = [];
        parent[key] = target;
      } else if (Array.isArray(current)) {
        target = current;
      } else {
        throw new ReadStoreInputError(`cannot apply $addToSet to '${path}', which is not an array`);
      }
      for (const item of items) {
        if (!target.some((existing) => jsonEqual(existing, item))) target.push(cloneOut(item));
      }
      return;
    }
    case '$pull': {
      if (current === undefined) return;
      if (!Array.isArray(current)) throw new ReadStoreInputError(`cannot apply $pull to '${path}', which is not an array`);
      const value = operation.value;
      if (current.includes(value)) parent[key] = current.filter((element) => element !== value);
      return;
    }
    default:
      throw new NeedsMingo();
  }
}

function applyWithMingo(before: Doc, parsed: ParsedUpdate, inserting: boolean): Doc {
  const modifier: Record<string, Record<string, unknown>> = {};
  for (const { operator, path, value } of parsed.operations) {
    let name = operator;
    if (operator === '$setOnInsert') {
      if (!inserting) continue;
      name = '$set';
    }
    let operand: unknown = value;
    if (operator === '$push' || operator === '$addToSet') operand = rawEach(value as unknown[]);
    (modifier[name] ??= {})[path] = operand;
  }
  const working = cloneOut(before);
  if (Object.keys(modifier).length > 0) {
    try {
      mingoUpdate(working, modifier, undefined, undefined, {
        cloneMode: 'deep',
        queryOptions: { scriptEnabled: false },
      });
    } catch (error) {
      throw new ReadStoreInputError(`invalid update: ${(error as Error)?.message ?? String(error)}`);
    }
  }
  const after = cloneIn(working, 'updated document');
  if (after._id !== before._id) throw new ReadStoreInputError("the update would modify the immutable field '_id'");
  return after;
}

/** Parsing turned `$push`/`$addToSet` operands into item lists, or kept modifier objects for mingo. */
function rawEach(value: unknown[] | unknown): unknown {
  return Array.isArray(value) ? { $each: value } : value;
}
