export * from './blob-store.port';
export { BlobStoreClosedError, FsBlobStore } from './fs/fs-blob-store';
export { GridFsBlobStore, createGridFsBlobStore } from './gridfs/gridfs-blob-store';
