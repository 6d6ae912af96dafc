import { Inject, Injectable } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '#blob-store/blob-store.port';
import { DomainError } from '#platform/errors';
import { ID_SHAPES } from '#platform/ids';
import {
  COMMENT_CONTENT,
  COMMENT_MEMBERS,
  COMMENT_USERS,
  type CommentContent,
  type CommentMembers,
  type CommentPeople,
} from './comments.needs';
import type { BodyRef, CommentBody } from './comment.events';

/**
 * A body as a request sends it: markdown, a JSON document as the platform sends it
 * (`{ document }`), or the document itself (`{ object: 'document', … }`, as this service took it first).
 */
export type BodyInput = { markdown: string } | { document: unknown } | { object: 'document'; [member: string]: unknown };

/** Longest markdown body of a comment or reply. */
export const MAX_BODY_LENGTH = 16_384;

/**
 * Longest markdown a JSON document body renders to. Events carry it (reads answer it as is), so it
 * is bounded like a markdown body, with room for what rendering adds (escapes, list markers).
 */
export const MAX_DOCUMENT_MARKDOWN_LENGTH = 4 * MAX_BODY_LENGTH;

const MENTION = /(^|[^\w@/[])@([0-9A-Za-z]{20})(?![0-9A-Za-z])/g;

/** `@<userId>` of the users given (members of the organization) as links to them, which content's converter reads as mentions; other ids stay as written. */
export function linkMentions(markdown: string, users: ReadonlyMap<string, { displayName?: string }>): string {
  return markdown.replace(MENTION, (whole, before: string, userId: string) => {
    const user = users.get(userId);
    if (!user) return whole;
    const name = (user.displayName ?? userId).replace(/[\\[\]]/g, (character) => `\\${character}`);
    return `${before}[@${name}](/users/${userId})`;
  });
}

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
  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(COMMENT_CONTENT) private readonly content: CommentContent,
    @Inject(COMMENT_USERS) private readonly users: CommentPeople,
    @Inject(COMMENT_MEMBERS) private readonly members: CommentMembers,
  ) {}

  /**
   * A body as a request sends it, converted (content's converter, in the untrusted-work pool) and
   * stored: its document in the blob store, its markdown rendered from it with the event. In
   * markdown, `@<userId>` of members of the space's organization become mentions: anyone else's id
   * stays plain text, so a mention reveals no name of someone the author shares no organization
   * with, nor whether such a user exists.
   */
  async fromInput(input: BodyInput, organizationId: string): Promise<BodyRef> {
    if ('markdown' in input) {
      if (typeof input.markdown !== 'string') throw DomainError.invalid('body.markdown must be a string');
      if (input.markdown.length > MAX_BODY_LENGTH) throw DomainError.invalid(`body.markdown must be at most ${MAX_BODY_LENGTH} characters`);
      if (input.markdown.trim() === '') throw DomainError.invalid('body.markdown must not be blank');
      const mentioned = [...new Set([...input.markdown.matchAll(MENTION)].map((match) => match[2]))]
        .filter((id) => ID_SHAPES.entity.test(id))
        .slice(0, 50);
      const members = mentioned.length > 0 ? await this.members.membersAmong(organizationId, mentioned) : new Set<string>();
      const users = members.size > 0 ? await this.users.byIds([...members]) : new Map();
      return this.store(await this.content.document({ markdown: linkMentions(input.markdown, users) }));
    }
    const field = 'document' in input ? 'body.document' : 'body';
    const document = 'document' in input ? input.document : input;
    if (
      document === null ||
      typeof document !== 'object' ||
      Array.isArray(document) ||
      (document as { object?: unknown }).object !== 'document'
    ) {
      throw DomainError.invalid(
        `${field} must be a JSON document ({ object: "document", nodes }); body takes { markdown } or { document }`,
      );
    }
    const converted = await this.content.document({ document });
    if (converted.markdown.trim() === '') throw DomainError.invalid(`${field} must not be empty: it has no text`);
    if (converted.markdown.length > MAX_DOCUMENT_MARKDOWN_LENGTH)
      throw DomainError.invalid(
        `${field} is too large: as markdown it is ${converted.markdown.length} characters, at most ${MAX_DOCUMENT_MARKDOWN_LENGTH}`,
      );
    return this.store(converted);
  }

  /** Stores the document (idempotent: the same body is stored once) and returns the body as events carry it. */
  private async store(converted: { document: CommentBody; markdown: string }): Promise<BodyRef> {
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
