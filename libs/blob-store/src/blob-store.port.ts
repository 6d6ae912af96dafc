import type { Readable } from 'node:stream';

/**
 * Content-addressed blob storage for page bodies, files, PDFs and spec versions: events carry the
 * SHA-256 hash, never the bytes. Adapters: filesystem (embedded) and GridFS (distributed); both pass
 * `blob-store.contract.ts`.
 */
export interface BlobInfo {
  /** Lower-case hex SHA-256 of the content. */
  hash: string;
  size: number;
}

export interface BlobStore {
  /** Stores the bytes (idempotent: the same content is stored once) and returns their hash. */
  put(content: Buffer | Uint8Array | Readable): Promise<BlobInfo>;
  /** Streams the content; throws `BlobNotFoundError` for an unknown hash. */
  get(hash: string): Promise<Readable>;
  /** Convenience for small blobs: the whole content in memory. */
  read(hash: string): Promise<Buffer>;
  /** Size of a stored blob, or null when it is not stored. */
  stat(hash: string): Promise<BlobInfo | null>;
  /**
   * Removes the blob; nothing when it is not stored. Content is shared by hash, so only a caller
   * that knows nothing else references the content may delete it (the content purge, docs/content.md).
   */
  delete(hash: string): Promise<void>;
  /**
   * Whether the store answers; `status: 'degraded'` with the hashes of blobs found damaged (their
   * bytes no longer match their hash, or are cut short) while the rest still serve.
   */
  health(): Promise<BlobStoreHealth>;
  close(): Promise<void>;
}

export interface BlobStoreHealth {
  ok: boolean;
  detail?: string;
  status?: 'degraded';
  damaged?: string[];
}

/** The stored bytes no longer match their hash, or are cut short: never served as if they were the blob. */
export class BlobDamagedError extends Error {
  override readonly name = 'BlobDamagedError';
  constructor(
    readonly hash: string,
    readonly problem: string,
  ) {
    super(`blob ${hash} is damaged: ${problem}`);
  }
}

export class BlobNotFoundError extends Error {
  override readonly name = 'BlobNotFoundError';
  constructor(readonly hash: string) {
    super(`no blob with hash ${hash}`);
  }
}

/** A hash argument that is not 64 lower-case hex digits. */
export class BlobHashError extends Error {
  override readonly name = 'BlobHashError';
  constructor(hash: unknown) {
    super(`invalid blob hash ${JSON.stringify(String(hash).slice(0, 80))}: expected 64 hex digits`);
  }
}

export const BLOB_HASH = /^[0-9a-f]{64}$/;

/**
 * Every adapter writes a put under a provisional name before publishing it under its hash. A
 * provisional upload older than this was abandoned (its process crashed before publishing it):
 * a store removes such uploads when it starts (on its first put). Far longer than any live
 * upload takes, with room for clock skew between hosts.
 */
export const PROVISIONAL_ABANDONED_AFTER_MS = 60 * 60 * 1000;
export const BLOB_STORE = Symbol('BLOB_STORE');
