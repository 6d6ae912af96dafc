import { Encoder } from 'msgpackr';

/**
 * How every LMDB database of the service encodes its values: MessagePack, through this package's
 * own msgpackr rather than the copy lmdb picks for itself. Under Jest, which loads each test file's
 * modules anew in a realm of its own, lmdb's copy is the one of the first test file of the worker
 * (its native part is loaded once per process): the documents it decoded in later files had
 * another realm's `Object` and `Array`, which mingo does not take for plain objects and arrays, so
 * a query on an array answered differently depending on which test file had run first. In the
 * service there is one realm and the two copies are the same.
 */
export const LMDB_VALUES = { encoding: 'msgpack', encoder: { Encoder } } as const;
