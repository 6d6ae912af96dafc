import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { BLOB_STORE, type BlobStore } from '../../blob-store/src/blob-store.port';
import { APP_CONFIG, type AppConfig } from '../../platform/src/config';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import { listEnvelope } from '../../platform/src/http/list';
import { organizationPermissions, type OrganizationRole } from '../../platform/src/permissions';
import { READ_STORE, type ReadStore } from '../../read-store/src/read-store.port';
import { OPENAPI_ORGANIZATIONS, type OpenapiOrganizations } from './openapi-organizations.port';
import type { OpenapiErrorCode, OpenapiProcessingState, PlatformOpenapiErrorCode } from './openapi.events';
import { platformErrorCode, platformProcessingState } from './openapi.platform-values';
import { OPENAPI_SPECS, OPENAPI_VERSIONS, type OpenapiSpecDoc, type OpenapiVersionDoc } from './openapi.projections';

/** Parsed documents kept, by hash (blobs never change): pages with operation blocks read them on every read. */
const PARSED_DOCUMENT_BYTES = 64 * 1024 * 1024;

/** `latest`, or a version id. */
export type VersionRef = 'latest' | { id: string };

/**
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

@Injectable()
export class OpenapiQueries {
  private readonly parsed = new LRUCache<string, { document: Record<string, unknown> }>({ maxSize: PARSED_DOCUMENT_BYTES });

  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(OPENAPI_ORGANIZATIONS) private readonly organizations: OpenapiOrganizations,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async list(organizationId: string, caller: Caller, paging: { page?: string; limit?: number }) {
    const role = await this.role(organizationId, caller);
    const page = await this.reads.collection<OpenapiSpecDoc>(OPENAPI_SPECS).find({ organizationId, deleted: { $exists: false } }, { sort: { slug: 1 }, limit: paging.limit, after: paging.page });
    return listEnvelope({ items: page.items.map((spec) => this.present(spec, role)), count: page.count, next: page.next });
  }

  /** The spec and its ETag source (its stream revision). */
  async get(organizationId: string, slug: string, caller: Caller) {
    const role = await this.role(organizationId, caller);
    const spec = await this.specBySlug(organizationId, slug);
    return { object: this.present(spec, role), streamRevision: spec.streamRevision };
  }

  /** The live spec holding the slug in the organization, or 404 (no role check: callers check). */
  async specBySlug(organizationId: string, slug: string): Promise<OpenapiSpecDoc> {
    // Equality on the (organizationId, slug) index only: the store answers it by lookup, without compiling a query; deleted specs are left out here.
    const page = await this.reads.collection<OpenapiSpecDoc>(OPENAPI_SPECS).find({ organizationId, slug }, { count: false });
    const spec = page.items.find((each) => each.deleted === undefined);
    if (!spec) throw DomainError.notFound(`no OpenAPI spec ${slug} in organization ${organizationId}`);
    return spec;
  }

  /** A spec's id for a write; 404 for people outside the organization and for unknown slugs. */
  async specIdFor(organizationId: string, slug: string, caller: Caller): Promise<string> {
    await this.role(organizationId, caller);
    return (await this.specBySlug(organizationId, slug))._id;
  }

  async versions(organizationId: string, slug: string, caller: Caller, paging: { page?: string; limit?: number }) {
    await this.role(organizationId, caller);
    const spec = await this.specBySlug(organizationId, slug);
    const page = await this.reads.collection<OpenapiVersionDoc>(OPENAPI_VERSIONS).find({ specId: spec._id }, { sort: { sequence: -1 }, limit: paging.limit, after: paging.page });
    return listEnvelope({ items: page.items.map((version) => this.presentVersion(spec, version)), count: page.count, next: page.next });
  }

  async version(organizationId: string, slug: string, ref: VersionRef, caller: Caller) {
    await this.role(organizationId, caller);
    const { spec, version } = await this.find(organizationId, slug, ref);
    return this.presentVersion(spec, version);
  }

  /**
   * `{ filesystem, url, urls }`: the parsed document, where its raw bytes are served (`url`, the
   * interface's member), and the platform's `urls`: `source`, the URL the version was fetched from
   * (the raw bytes here for a `{ text }` source), and `public` null: specs are read by the
   * organization's members only, none is public.
   */
  async content(organizationId: string, slug: string, ref: VersionRef, caller: Caller) {
    await this.role(organizationId, caller);
    const { spec, version } = await this.find(organizationId, slug, ref);
    const url = this.rawUrl(spec, version);
    return { filesystem: await this.document(version), url, urls: { source: version.sourceURL ?? url, public: null } };
  }

  /** The raw bytes of a version, as fetched or given. */
  async raw(organizationId: string, slug: string, versionId: string, caller: Caller): Promise<{ contentType: string; body: Buffer }> {
    await this.role(organizationId, caller);
    const { version } = await this.find(organizationId, slug, { id: versionId });
    return { contentType: version.contentType, body: await this.blobs.read(version.rawHash) };
  }

  /** The parsed document of the latest version of a live spec, or null (for content's computed blocks: no caller, the space was checked). */
  async latestDocument(organizationId: string, slug: string): Promise<{ versionId: string; document: Record<string, unknown> } | null> {
    // Equality on the (organizationId, slug) index only: the store answers it by lookup, without compiling a query; deleted specs are left out here.
    const page = await this.reads.collection<OpenapiSpecDoc>(OPENAPI_SPECS).find({ organizationId, slug }, { count: false });
    const spec = page.items.find((each) => each.deleted === undefined);
    if (!spec?.lastVersion) return null;
    const version = await this.reads.collection<OpenapiVersionDoc>(OPENAPI_VERSIONS).get(spec.lastVersion);
    return version ? { versionId: version._id, document: await this.document(version) } : null;
  }

  /** A version's spec (organization, slug) and whether it is the spec's newest version; null for a deleted spec or a version it does not have. */
  async specVersion(specId: string, versionId: string): Promise<{ organizationId: string; slug: string; newest: boolean } | null> {
    const spec = await this.reads.collection<OpenapiSpecDoc>(OPENAPI_SPECS).get(specId);
    if (!spec || spec.deleted) return null;
    const version = await this.reads.collection<OpenapiVersionDoc>(OPENAPI_VERSIONS).get(versionId);
    if (!version || version.specId !== specId) return null;
    return { organizationId: spec.organizationId, slug: spec.slug, newest: version.sequence === spec.versions };
  }

  /** A version's parsed document: shared between reads, so never changed by a caller. */
  private async document(version: OpenapiVersionDoc): Promise<Record<string, unknown>> {
    const cached = this.parsed.get(version.documentHash);
    if (cached) return cached.document;
    const bytes = await this.blobs.read(version.documentHash);
    const document = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    this.parsed.set(version.documentHash, { document }, { size: Math.max(1, bytes.length) });
    return document;
  }

  private async find(organizationId: string, slug: string, ref: VersionRef): Promise<{ spec: OpenapiSpecDoc; version: OpenapiVersionDoc }> {
    const spec = await this.specBySlug(organizationId, slug);
    const versionId = ref === 'latest' ? spec.lastVersion : ref.id;
    const version = versionId ? await this.reads.collection<OpenapiVersionDoc>(OPENAPI_VERSIONS).get(versionId) : null;
    if (!version || version.specId !== spec._id) throw DomainError.notFound(ref === 'latest' ? `the OpenAPI spec ${slug} has no version yet` : `no version ${ref.id} of the OpenAPI spec ${slug}`);
    return { spec, version };
  }

  /** The caller's organization role; 404 for people outside the organization. */
  private async role(organizationId: string, caller: Caller): Promise<OrganizationRole> {
    const standing = caller.kind === 'user' ? await this.organizations.roleOf(organizationId, caller.userId) : null;
    if (!standing?.member) throw DomainError.notFound(`no organization ${organizationId}`);
    return standing.role;
  }

  private location(spec: OpenapiSpecDoc): string {
    return `${this.config.publicUrl}/v1/orgs/${spec.organizationId}/openapi/${spec.slug}`;
  }

  private rawUrl(spec: OpenapiSpecDoc, version: OpenapiVersionDoc): string {
    return `${this.location(spec)}/versions/${version._id}/raw`;
  }

  present(spec: OpenapiSpecDoc, role: OrganizationRole): OpenapiSpecObject {
    // Built member by member, in the same order: on Node 20 a literal with conditional spreads followed by members takes V8's slow path.
    const object = { object: 'openapi-spec', id: spec._id, createdAt: spec.createdAt, updatedAt: spec.updatedAt, slug: spec.slug } as OpenapiSpecObject;
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
    object.urls = { location: this.location(spec), app: `${this.config.publicUrl}/o/${spec.organizationId}/openapi/${spec.slug}` };
    return object;
  }

  private presentVersion(spec: OpenapiSpecDoc, version: OpenapiVersionDoc) {
    return {
      object: 'openapi-spec-version' as const,
      id: version._id,
      createdAt: version.createdAt,
      url: this.rawUrl(spec, version),
      urls: { location: `${this.location(spec)}/versions/${version._id}` },
    };
  }
}
