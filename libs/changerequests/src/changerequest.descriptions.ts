import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { BLOB_STORE, type BlobStore } from '#blob-store/blob-store.port';
import { DomainError } from '#platform/errors';
import { deepFreeze } from '#platform/plain-object';
import { CHANGE_REQUEST_DOCUMENTS, type ChangeRequestDocument, type ChangeRequestDocuments } from './changerequests.needs';

/** Longest description, as the markdown its document renders to (a description is a few paragraphs; this is a long one). */
export const MAX_DESCRIPTION_MARKDOWN_LENGTH = 64 * 1024;

/**
 * Change-request descriptions (the platform's `description`, a JSON document): validated by
 * content's converter, kept in the blob store inside `{ object: 'change-request-description',
 * document }` (so a description never shares a hash with a page body, which content deletes when
 * it purges a space), and read back for every request presented, through a cache of the parsed
 * documents: blobs never change, so a cached one is never stale.
 */
@Injectable()
export class ChangeRequestDescriptions {
  /** Parsed descriptions by hash, bounded by their JSON's size. */
  private readonly parsed = new LRUCache<string, ChangeRequestDocument>({ maxSize: 8 * 1024 * 1024 });

  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(CHANGE_REQUEST_DOCUMENTS) private readonly documents: ChangeRequestDocuments,
  ) {}

  /** Validates and stores a description as sent; its hash, which the event carries. */
  async store(description: unknown): Promise<string> {
    if (
      description === null ||
      typeof description !== 'object' ||
      Array.isArray(description) ||
      (description as { object?: unknown }).object !== 'document'
    ) {
      throw DomainError.invalid('description must be a JSON document ({ object: "document", data, nodes })');
    }
    const converted = await this.documents.document({ document: description });
    if (converted.markdown.length > MAX_DESCRIPTION_MARKDOWN_LENGTH)
      throw DomainError.invalid(
        `description is too large: as markdown it is ${converted.markdown.length} characters, at most ${MAX_DESCRIPTION_MARKDOWN_LENGTH}`,
      );
    const { hash } = await this.blobs.put(
      Buffer.from(JSON.stringify({ object: 'change-request-description', document: converted.document }), 'utf8'),
    );
    return hash;
  }

  /** The descriptions of these hashes (frozen, shared: never change one), read once each. */
  async read(hashes: readonly string[]): Promise<Map<string, ChangeRequestDocument>> {
    const found = new Map<string, ChangeRequestDocument>();
    await Promise.all(
      [...new Set(hashes)].map(async (hash) => {
        let document = this.parsed.get(hash);
        if (!document) {
          const bytes = await this.blobs.read(hash);
          document = deepFreeze((JSON.parse(bytes.toString('utf8')) as { document: ChangeRequestDocument }).document);
          this.parsed.set(hash, document, { size: bytes.length + 64 });
        }
        found.set(hash, document);
      }),
    );
    return found;
  }
}
