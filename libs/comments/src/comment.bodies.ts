import { Inject, Injectable } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '../../blob-store/src/blob-store.port';
import type { BodyRef, CommentBody } from './comment.events';

/**
 * A body's bytes in the blob store: its document inside `{ object: 'comment-body', document }`, so
 * that a comment's blob never has the hash of a page body's (content's canonical JSON of the bare
 * document): content deletes the blobs of a purged space's pages, and must never delete a comment's.
 */
export function commentBodyBytes(document: CommentBody): Buffer {
  return Buffer.from(JSON.stringify({ object: 'comment-body', document }), 'utf8');
}

/**
 * Comment and reply bodies in the blob store (docs/architecture.md: large content never in
 * events). A 16 KiB markdown list converts to a document of about 170 KB: carried by events and
 * read models it cost about 30 ms per comment to encode into the log and to copy and freeze in the
 * read store. Events and read models now carry its hash and its markdown; the document is read
 * back only for `format=document`.
 */
@Injectable()
export class CommentBodies {
  constructor(@Inject(BLOB_STORE) private readonly blobs: BlobStore) {}

  /** Stores the document (idempotent: the same body is stored once) and returns the body as events carry it. */
  async store(converted: { document: CommentBody; markdown: string }): Promise<BodyRef> {
    const { hash } = await this.blobs.put(commentBodyBytes(converted.document));
    return { blob: hash, markdown: converted.markdown };
  }

  /** The body's document, from the blob store, or carried inline by bodies stored before. */
  async document(body: BodyRef): Promise<CommentBody> {
    if ('document' in body) return body.document;
    const stored = JSON.parse((await this.blobs.read(body.blob)).toString('utf8')) as { document: CommentBody };
    return stored.document;
  }
}
