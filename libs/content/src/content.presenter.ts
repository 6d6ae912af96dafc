import { createHmac, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { CLOCK, type Clock } from '#platform/clock';
import { CONTENT_URL_KEY, type ContentSpace } from './content.needs';
import type { RevisionDoc } from './content.projections';
import type { DocumentNode } from '#document/document.model';
import { pageLayout, type PageLayout } from './tree/page-layout';
import type { ComputedSource, FileEntry, PageView } from './tree/tree.model';
import type { RevisionTree } from './tree/revision-tree';

/** How long a signed download URL of a non-public space stays valid. */
export const DOWNLOAD_URL_LIFETIME_SECONDS = 60 * 60;

/** The older spelling of a page's type that clients still read (docs/content.md, Pages). */
const KIND = { document: 'sheet', group: 'group', link: 'link' } as const;

export interface PageObject {
  id: string;
  title: string;
  kind: 'sheet' | 'group' | 'link';
  type: PageView['type'];
  createdAt: string;
  updatedAt: string;
  emoji?: string;
  icon?: string;
  linkTitle?: string;
  condition?: string;
  slug?: string;
  path?: string;
  description?: string;
  documentId?: string;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  /** Document pages: always present (the platform requires it), the default unless the node has one. */
  layout?: PageLayout;
  cover?: Record<string, unknown>;
  variables?: Record<string, string>;
  computed?: ComputedSource;
  target?: unknown;
  href?: string;
  pages?: PageObject[];
  urls?: { app: string };
  /** Document pages: the service has no page tags, so always empty. */
  tags?: never[];
  markdown?: string;
  document?: DocumentNode;
}

/** A document page's body, as reads carry it: one of the two formats. */
export type PageBody = { document: DocumentNode } | { markdown: string };

export interface FileObject {
  object: 'file';
  id: string;
  name: string;
  contentType: string;
  downloadURL: string;
  size: number;
  dimensions?: { width: number; height: number };
}

export interface RevisionObject {
  object: 'revision';
  id: string;
  parents: string[];
  type: RevisionDoc['revisionType'];
  createdAt: string;
  createdBy?: string;
  /** A merge revision's change request, whole (the platform's `mergedFrom` is a ChangeRequest). */
  mergedFrom?: MergedChangeRequest;
  pages: PageObject[];
  files: FileObject[];
  reusableContents: never[];
  /** The service has no tags: always empty. */
  tags: never[];
  variables: Record<string, string>;
  urls: { app: string; public?: string };
}

/** The change request a merge revision came from, as the change-request reads present it. */
export type MergedChangeRequest = Record<string, unknown>;

export interface RevisionSummary {
  object: 'revision';
  id: string;
  parents: string[];
  type: RevisionDoc['revisionType'];
  createdAt: string;
  createdBy?: string;
  mergedFrom?: string;
  urls: { location: string; app: string };
}

/** Wire shapes of content (docs/content.md): pages, files, revisions, with their URLs. */
@Injectable()
export class ContentPresenter {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONTENT_URL_KEY) private readonly urlKey: Buffer,
  ) {}

  /**
   * A page; `children` as nested pages when given (the tree reads), else none; `body` the document
   * page's body in the format the read asked for.
   */
  page(space: Pick<ContentSpace, 'id'>, page: PageView, children?: PageObject[], body?: PageBody): PageObject {
    // Assigned member by member rather than spread from conditional objects: this runs for every
    // page of every read, and each spread allocates and copies an object.
    const out: PageObject = {
      id: page.id,
      title: page.title,
      kind: KIND[page.type],
      type: page.type,
      createdAt: page.createdAt,
      updatedAt: page.updatedAt,
    };
    if (page.emoji !== undefined) out.emoji = page.emoji;
    if (page.icon !== undefined) out.icon = page.icon;
    if (page.linkTitle !== undefined) out.linkTitle = page.linkTitle;
    if (page.condition !== undefined) out.condition = page.condition;
    if (page.type === 'link') {
      if (page.target !== undefined) out.target = page.target;
      if (page.href !== undefined) out.href = page.href;
      out.hidden = page.hidden ?? false;
      return out;
    }
    out.slug = page.slug ?? '';
    out.path = page.path;
    if (page.description !== undefined) out.description = page.description;
    if (page.type === 'document' && page.document !== undefined) out.documentId = page.document;
    out.pages = children ?? [];
    out.hidden = page.hidden ?? false;
    out.noIndex = page.noIndex ?? false;
    if (page.type === 'document') {
      out.noRobotsIndex = page.noRobotsIndex ?? false;
      out.layout = pageLayout(page.layout);
      out.tags = [];
    }
    if (page.cover !== undefined) out.cover = page.cover;
    if (page.variables !== undefined) out.variables = page.variables;
    if (page.type === 'document' && page.computed !== undefined) out.computed = page.computed;
    out.urls = { app: `${this.config.publicUrl}/s/${space.id}/${page.path}` };
    if (body !== undefined && page.type === 'document') {
      if ('document' in body) out.document = body.document;
      else out.markdown = body.markdown;
    }
    return out;
  }

  /** The page tree of a revision (or below a page), nested; `bodies` the document pages' bodies by page id. */
  pageTree(
    space: Pick<ContentSpace, 'id'>,
    tree: RevisionTree,
    parentId: string | null = null,
    bodies?: ReadonlyMap<string, PageBody>,
  ): PageObject[] {
    return tree
      .children(parentId)
      .map((page) =>
        this.page(space, page, page.type === 'link' ? undefined : this.pageTree(space, tree, page.id, bodies), bodies?.get(page.id)),
      );
  }

  file(space: Pick<ContentSpace, 'id' | 'visibility'>, revisionId: string, file: FileEntry): FileObject {
    return {
      object: 'file',
      id: file.id,
      name: file.name,
      contentType: file.contentType,
      downloadURL: this.downloadUrl(space, revisionId, file),
      size: file.size,
      ...(file.dimensions !== undefined ? { dimensions: file.dimensions } : {}),
    };
  }

  /** What a revision and its summary both show (a summary names a merge's change request by id). */
  private revisionHeader(revision: RevisionDoc): Omit<RevisionSummary, 'urls'> {
    return {
      object: 'revision',
      id: revision._id,
      parents: revision.parents,
      type: revision.revisionType,
      createdAt: revision.createdAt,
      ...(revision.createdBy !== null ? { createdBy: revision.createdBy } : {}),
      ...(revision.mergedFrom !== undefined ? { mergedFrom: revision.mergedFrom } : {}),
    };
  }

  revision(
    space: Pick<ContentSpace, 'id' | 'visibility'>,
    revision: RevisionDoc,
    tree: RevisionTree,
    pages: PageObject[],
    mergedFrom: MergedChangeRequest | undefined,
  ): RevisionObject {
    const { mergedFrom: _mergedFromId, ...header } = this.revisionHeader(revision);
    return {
      ...header,
      ...(mergedFrom !== undefined ? { mergedFrom } : {}),
      pages,
      files: tree.files().map((file) => this.file(space, revision._id, file)),
      reusableContents: [],
      tags: [],
      variables: tree.variables,
      urls: this.revisionUrls(space),
    };
  }

  revisionSummary(space: Pick<ContentSpace, 'id'>, revision: RevisionDoc): RevisionSummary {
    return {
      ...this.revisionHeader(revision),
      urls: {
        location: `${this.config.publicUrl}/v1/spaces/${space.id}/revisions/${revision._id}`,
        app: `${this.config.publicUrl}/s/${space.id}/~/revisions/${revision._id}`,
      },
    };
  }

  private revisionUrls(space: Pick<ContentSpace, 'id' | 'visibility'>) {
    const base = this.config.publicUrl;
    const listed = space.visibility === 'public' || space.visibility === 'unlisted';
    return { app: `${base}/s/${space.id}`, ...(listed ? { public: `${base}/public/spaces/${space.id}` } : {}) };
  }

  /**
   * Where a file's bytes are served. Files of public spaces are public; others carry a signature
   * over the space, file, content hash and expiry, so the URL works without a token until it expires
   * and cannot be bent to another file.
   */
  downloadUrl(space: Pick<ContentSpace, 'id' | 'visibility'>, revisionId: string, file: FileEntry): string {
    const url = `${this.config.publicUrl}/v1/spaces/${space.id}/content/files/${file.id}/download?revision=${revisionId}`;
    if (space.visibility === 'public') return url;
    const expires = Math.floor(this.clock.now().getTime() / 1000) + DOWNLOAD_URL_LIFETIME_SECONDS;
    return `${url}&expires=${expires}&signature=${this.signature(space.id, revisionId, file.id, expires)}`;
  }

  /** Whether a download URL's signature is this service's and has not expired. */
  validDownload(spaceId: string, revisionId: string, fileId: string, expires: number | undefined, signature: string | undefined): boolean {
    if (expires === undefined || signature === undefined || !Number.isSafeInteger(expires)) return false;
    if (expires * 1000 < this.clock.now().getTime()) return false;
    const expected = Buffer.from(this.signature(spaceId, revisionId, fileId, expires));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  private signature(spaceId: string, revisionId: string, fileId: string, expires: number): string {
    return createHmac('sha256', this.urlKey).update(`${spaceId}\n${revisionId}\n${fileId}\n${expires}`).digest('base64url');
  }
}
