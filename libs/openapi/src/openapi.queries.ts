import { Inject, Injectable } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { LRUCache } from 'lru-cache';
import { BLOB_STORE, type BlobStore } from '#blob-store/blob-store.port';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { listEnvelope, type ListEnvelope } from '#platform/http/list';
import { organizationPermissions, type OrganizationRole } from '#platform/permissions';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { OpenapiAccess } from './openapi.access';
import type { OpenapiErrorCode, OpenapiProcessingState, PlatformOpenapiErrorCode } from './openapi.events';
import { platformErrorCode, platformProcessingState } from './openapi.platform-values';
import { OPENAPI_SPECS, OPENAPI_VERSIONS, type OpenapiSpecDoc, type OpenapiVersionDoc } from './openapi.projections';

/** Parsed documents kept, by hash (blobs never change): pages with operation blocks read them on every read. */
const PARSED_DOCUMENT_BYTES = 64 * 1024 * 1024;

/** `latest`, or a version id. */
export type VersionRef = 'latest' | { id: string };

/*
 * The spec reads: every member of the organization (guests included) reads its specs, their
 * versions and contents; `permissions.edit` is `createOpenAPISpec`.
 */

/** An OpenAPI specification as the API answers it. */
export interface OpenapiSpecObject {
  object: 'openapi-spec';
  id: string;
  createdAt: string;
  updatedAt: string;
  slug: string;
  sourceURL?: string;
  processingState: OpenapiProcessingState;
  lastVersion?: string;
  lastProcessedAt?: string;
  lastProcessErrorCode?: PlatformOpenapiErrorCode;
  /** Extension: what went wrong, in words. */
  lastProcessErrorMessage?: string;
  /** The last processing's errors: the service records one, with its own code. */
  lastProcessedErrors?: Array<{ code: OpenapiErrorCode; message: string }>;
  lastProcessedErrorCount: number;
  permissions: { view: true; edit: boolean };
  urls: { location: string; app: string };
}

/** A version of a spec as the API answers it. */
export interface OpenapiSpecVersionObject {
  object: 'openapi-spec-version';
  id: string;
  createdAt: string;
  url: string;
  urls: { location: string };
}

/** `{ filesystem, url, urls }` of a version's content. */
export interface OpenapiSpecContentObject {
  filesystem: Record<string, unknown>;
  url: string;
  urls: { source: string; public: null };
}

/** The versions' parsed documents, kept by hash (blobs never change) and shared by the reads: a document is never changed by a caller. */
@Injectable()
export class ParsedDocuments {
  private readonly parsed = new LRUCache<string, { document: Record<string, unknown> }>({ maxSize: PARSED_DOCUMENT_BYTES });

  constructor(@Inject(BLOB_STORE) private readonly blobs: BlobStore) {}

  async of(version: OpenapiVersionDoc): Promise<Record<string, unknown>> {
    const cached = this.parsed.get(version.documentHash);
    if (cached) return cached.document;
    const bytes = await this.blobs.read(version.documentHash);
    const document = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    this.parsed.set(version.documentHash, { document }, { size: Math.max(1, bytes.length) });
    return document;
  }
}

/** The live spec holding the slug in the organization, or 404 (no role check: callers check). */
async function specBySlug(reads: ReadStore, organizationId: string, slug: string): Promise<OpenapiSpecDoc> {
  const spec = await liveSpecBySlug(reads, organizationId, slug);
  if (!spec) throw DomainError.notFound(`no OpenAPI spec ${slug} in organization ${organizationId}`);
  return spec;
}

async function liveSpecBySlug(reads: ReadStore, organizationId: string, slug: string): Promise<OpenapiSpecDoc | undefined> {
  // Equality on the (organizationId, slug) index only: the store answers it by lookup, without compiling a query; deleted specs are left out here.
  const page = await reads.collection<OpenapiSpecDoc>(OPENAPI_SPECS).find({ organizationId, slug }, { count: false });
  return page.items.find((each) => each.deleted === undefined);
}

/** The live spec holding the slug and its version `ref`; 404 for either. */
async function findVersion(
  reads: ReadStore,
  organizationId: string,
  slug: string,
  ref: VersionRef,
): Promise<{ spec: OpenapiSpecDoc; version: OpenapiVersionDoc }> {
  const spec = await specBySlug(reads, organizationId, slug);
  const versionId = ref === 'latest' ? spec.lastVersion : ref.id;
  const version = versionId ? await reads.collection<OpenapiVersionDoc>(OPENAPI_VERSIONS).get(versionId) : null;
  if (!version || version.specId !== spec._id)
    throw DomainError.notFound(
      ref === 'latest' ? `the OpenAPI spec ${slug} has no version yet` : `no version ${ref.id} of the OpenAPI spec ${slug}`,
    );
  return { spec, version };
}

function location(spec: OpenapiSpecDoc, publicUrl: string): string {
  return `${publicUrl}/v1/orgs/${spec.organizationId}/openapi/${spec.slug}`;
}

function rawUrl(spec: OpenapiSpecDoc, version: OpenapiVersionDoc, publicUrl: string): string {
  return `${location(spec, publicUrl)}/versions/${version._id}/raw`;
}

function presentSpec(spec: OpenapiSpecDoc, role: OrganizationRole, publicUrl: string): OpenapiSpecObject {
  // Built member by member, in the same order: on Node 20 a literal with conditional spreads followed by members takes V8's slow path.
  const object = {
    object: 'openapi-spec',
    id: spec._id,
    createdAt: spec.createdAt,
    updatedAt: spec.updatedAt,
    slug: spec.slug,
  } as OpenapiSpecObject;
  if (spec.sourceURL !== null) object.sourceURL = spec.sourceURL;
  object.processingState = platformProcessingState(spec.processingState);
  if (spec.lastVersion !== null) object.lastVersion = spec.lastVersion;
  if (spec.lastProcessedAt !== null) object.lastProcessedAt = spec.lastProcessedAt;
  if (spec.lastProcessErrorCode !== null) {
    const message = spec.lastProcessErrorMessage ?? '';
    object.lastProcessErrorCode = platformErrorCode(spec.lastProcessErrorCode);
    object.lastProcessErrorMessage = message;
    object.lastProcessedErrors = [{ code: spec.lastProcessErrorCode, message }];
  }
  // A failed processing records one error; one that made a version, none.
  object.lastProcessedErrorCount = spec.lastProcessErrorCode === null ? 0 : 1;
  object.permissions = { view: true, edit: organizationPermissions(role).createOpenAPISpec };
  object.urls = { location: location(spec, publicUrl), app: `${publicUrl}/o/${spec.organizationId}/openapi/${spec.slug}` };
  return object;
}

function presentVersion(spec: OpenapiSpecDoc, version: OpenapiVersionDoc, publicUrl: string): OpenapiSpecVersionObject {
  return {
    object: 'openapi-spec-version' as const,
    id: version._id,
    createdAt: version.createdAt,
    url: rawUrl(spec, version, publicUrl),
    urls: { location: `${location(spec, publicUrl)}/versions/${version._id}` },
  };
}

/** `GET /orgs/{organizationId}/openapi`: the organization's live specs, by slug. */
export class ListOpenapiSpecs extends Query<ListEnvelope<OpenapiSpecObject>> {
  constructor(
    readonly organizationId: string,
    readonly caller: Caller,
    readonly paging: { page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(ListOpenapiSpecs)
export class ListOpenapiSpecsHandler implements IQueryHandler<ListOpenapiSpecs> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: OpenapiAccess,
  ) {}

  async execute({ organizationId, caller, paging }: ListOpenapiSpecs): Promise<ListEnvelope<OpenapiSpecObject>> {
    const role = await this.access.role(organizationId, caller);
    const page = await this.reads
      .collection<OpenapiSpecDoc>(OPENAPI_SPECS)
      .find({ organizationId, deleted: { $exists: false } }, { sort: { slug: 1 }, limit: paging.limit, after: paging.page });
    return listEnvelope({
      items: page.items.map((spec) => presentSpec(spec, role, this.config.publicUrl)),
      count: page.count,
      next: page.next,
    });
  }
}

/** `GET /orgs/{organizationId}/openapi/{specSlug}`: the spec and its ETag source (its stream revision). */
export class GetOpenapiSpec extends Query<{ object: OpenapiSpecObject; streamRevision: number }> {
  constructor(
    readonly organizationId: string,
    readonly slug: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetOpenapiSpec)
export class GetOpenapiSpecHandler implements IQueryHandler<GetOpenapiSpec> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: OpenapiAccess,
  ) {}

  async execute({ organizationId, slug, caller }: GetOpenapiSpec) {
    const role = await this.access.role(organizationId, caller);
    const spec = await specBySlug(this.reads, organizationId, slug);
    return { object: presentSpec(spec, role, this.config.publicUrl), streamRevision: spec.streamRevision };
  }
}

/** A spec's id for a write (`DELETE /orgs/{organizationId}/openapi/{specSlug}`); 404 for people outside the organization and for unknown slugs. */
export class GetOpenapiSpecId extends Query<string> {
  constructor(
    readonly organizationId: string,
    readonly slug: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetOpenapiSpecId)
export class GetOpenapiSpecIdHandler implements IQueryHandler<GetOpenapiSpecId> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: OpenapiAccess,
  ) {}

  async execute({ organizationId, slug, caller }: GetOpenapiSpecId): Promise<string> {
    await this.access.role(organizationId, caller);
    return (await specBySlug(this.reads, organizationId, slug))._id;
  }
}

/** `GET /orgs/{organizationId}/openapi/{specSlug}/versions`: newest first. */
export class ListOpenapiSpecVersions extends Query<ListEnvelope<OpenapiSpecVersionObject>> {
  constructor(
    readonly organizationId: string,
    readonly slug: string,
    readonly caller: Caller,
    readonly paging: { page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(ListOpenapiSpecVersions)
export class ListOpenapiSpecVersionsHandler implements IQueryHandler<ListOpenapiSpecVersions> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: OpenapiAccess,
  ) {}

  async execute({ organizationId, slug, caller, paging }: ListOpenapiSpecVersions): Promise<ListEnvelope<OpenapiSpecVersionObject>> {
    await this.access.role(organizationId, caller);
    const spec = await specBySlug(this.reads, organizationId, slug);
    const page = await this.reads
      .collection<OpenapiVersionDoc>(OPENAPI_VERSIONS)
      .find({ specId: spec._id }, { sort: { sequence: -1 }, limit: paging.limit, after: paging.page });
    return listEnvelope({
      items: page.items.map((version) => presentVersion(spec, version, this.config.publicUrl)),
      count: page.count,
      next: page.next,
    });
  }
}

/** `GET /orgs/{organizationId}/openapi/{specSlug}/versions/latest` and `…/versions/{versionId}` */
export class GetOpenapiSpecVersion extends Query<OpenapiSpecVersionObject> {
  constructor(
    readonly organizationId: string,
    readonly slug: string,
    readonly ref: VersionRef,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetOpenapiSpecVersion)
export class GetOpenapiSpecVersionHandler implements IQueryHandler<GetOpenapiSpecVersion> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: OpenapiAccess,
  ) {}

  async execute({ organizationId, slug, ref, caller }: GetOpenapiSpecVersion): Promise<OpenapiSpecVersionObject> {
    await this.access.role(organizationId, caller);
    const { spec, version } = await findVersion(this.reads, organizationId, slug, ref);
    return presentVersion(spec, version, this.config.publicUrl);
  }
}

/**
 * `GET /orgs/{organizationId}/openapi/{specSlug}/versions/{latest|versionId}/content`:
 * `{ filesystem, url, urls }`: the parsed document, where its raw bytes are served (`url`, the
 * interface's member), and the platform's `urls`: `source`, the URL the version was fetched from
 * (the raw bytes here for a `{ text }` source), and `public` null: specs are read by the
 * organization's members only, none is public.
 */
export class GetOpenapiSpecContent extends Query<OpenapiSpecContentObject> {
  constructor(
    readonly organizationId: string,
    readonly slug: string,
    readonly ref: VersionRef,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetOpenapiSpecContent)
export class GetOpenapiSpecContentHandler implements IQueryHandler<GetOpenapiSpecContent> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: OpenapiAccess,
    private readonly documents: ParsedDocuments,
  ) {}

  async execute({ organizationId, slug, ref, caller }: GetOpenapiSpecContent): Promise<OpenapiSpecContentObject> {
    await this.access.role(organizationId, caller);
    const { spec, version } = await findVersion(this.reads, organizationId, slug, ref);
    const url = rawUrl(spec, version, this.config.publicUrl);
    return { filesystem: await this.documents.of(version), url, urls: { source: version.sourceURL ?? url, public: null } };
  }
}

/** `GET /orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/raw` (extension): the raw bytes of a version, as fetched or given. */
export class GetOpenapiSpecVersionRaw extends Query<{ contentType: string; body: Buffer }> {
  constructor(
    readonly organizationId: string,
    readonly slug: string,
    readonly versionId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetOpenapiSpecVersionRaw)
export class GetOpenapiSpecVersionRawHandler implements IQueryHandler<GetOpenapiSpecVersionRaw> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    private readonly access: OpenapiAccess,
  ) {}

  async execute({ organizationId, slug, versionId, caller }: GetOpenapiSpecVersionRaw): Promise<{ contentType: string; body: Buffer }> {
    await this.access.role(organizationId, caller);
    const { version } = await findVersion(this.reads, organizationId, slug, { id: versionId });
    return { contentType: version.contentType, body: await this.blobs.read(version.rawHash) };
  }
}

/** The parsed document of the latest version of a live spec, or null (for content's computed blocks: no caller, the space was checked). */
export class GetLatestOpenapiDocument extends Query<{ versionId: string; document: Record<string, unknown> } | null> {
  constructor(
    readonly organizationId: string,
    readonly slug: string,
  ) {
    super();
  }
}

@QueryHandler(GetLatestOpenapiDocument)
export class GetLatestOpenapiDocumentHandler implements IQueryHandler<GetLatestOpenapiDocument> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly documents: ParsedDocuments,
  ) {}

  async execute({
    organizationId,
    slug,
  }: GetLatestOpenapiDocument): Promise<{ versionId: string; document: Record<string, unknown> } | null> {
    const spec = await liveSpecBySlug(this.reads, organizationId, slug);
    if (!spec?.lastVersion) return null;
    const version = await this.reads.collection<OpenapiVersionDoc>(OPENAPI_VERSIONS).get(spec.lastVersion);
    return version ? { versionId: version._id, document: await this.documents.of(version) } : null;
  }
}

/** A version's spec (organization, slug) and whether it is the spec's newest version; null for a deleted spec or a version it does not have. */
export class FindOpenapiSpecVersion extends Query<{ organizationId: string; slug: string; newest: boolean } | null> {
  constructor(
    readonly specId: string,
    readonly versionId: string,
  ) {
    super();
  }
}

@QueryHandler(FindOpenapiSpecVersion)
export class FindOpenapiSpecVersionHandler implements IQueryHandler<FindOpenapiSpecVersion> {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async execute({ specId, versionId }: FindOpenapiSpecVersion): Promise<{ organizationId: string; slug: string; newest: boolean } | null> {
    const spec = await this.reads.collection<OpenapiSpecDoc>(OPENAPI_SPECS).get(specId);
    if (!spec || spec.deleted) return null;
    const version = await this.reads.collection<OpenapiVersionDoc>(OPENAPI_VERSIONS).get(versionId);
    if (!version || version.specId !== specId) return null;
    return { organizationId: spec.organizationId, slug: spec.slug, newest: version.sequence === spec.versions };
  }
}

export const openapiQueryHandlers = [
  ListOpenapiSpecsHandler,
  GetOpenapiSpecHandler,
  GetOpenapiSpecIdHandler,
  ListOpenapiSpecVersionsHandler,
  GetOpenapiSpecVersionHandler,
  GetOpenapiSpecContentHandler,
  GetOpenapiSpecVersionRawHandler,
  GetLatestOpenapiDocumentHandler,
  FindOpenapiSpecVersionHandler,
];
