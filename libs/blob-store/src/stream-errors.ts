import type { Readable } from 'node:stream';

/**
 * Runs a put of `stream`, listening for the stream's errors from the moment the put is called until
 * it settles. A store reads the stream only after some asynchronous preparation (a temporary file
 * opened, a bucket made ready): an 'error' the stream emitted meanwhile, with no listener, would be
 * thrown as an unhandled event and take the process down. The put still fails with that error: the
 * stream keeps it (`errored`), and the store's read of the stream rejects with it.
 */
export async function putReadingErrors<T>(stream: Readable, put: () => Promise<T>): Promise<T> {
  // A stream-like object without events (GridFS accepts any async-iterable with `pipe`) emits none.
  if (typeof stream.on !== 'function' || typeof stream.off !== 'function') return put();
  const meanwhile = (): void => undefined;
  stream.on('error', meanwhile);
  try {
    return await put();
  } finally {
    stream.off('error', meanwhile);
  }
}
