import { Inject, Injectable } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '../../blob-store/src/blob-store.port';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import { newId } from '../../platform/src/ids';
import { organizationPermissions, type OrganizationRole } from '../../platform/src/permissions';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { OPENAPI_ORGANIZATIONS, type OpenapiOrganizations } from './openapi-organizations.port';
import { openapiSlugsDecider, openapiSlugsStream, openapiSpecDecider, openapiSpecStream, type OpenapiSpecCommand } from './openapi.decider';
import type { OpenapiSource } from './openapi.events';

/** A source as a request gives it. */
export type SourceBody = { url: string; text?: undefined } | { text: string; url?: undefined };

/**
 * The spec writes: one method per command. Members with `createOpenAPISpec` (role create and above)
 * create, update and delete specs. A slug is claimed on the organization's slug stream first: the
 * claim decides which spec a slug names, so two concurrent creates of one slug make one spec (the
 * other is 409) and a PUT updates the spec holding the slug or creates it.
 */
@Injectable()
export class OpenapiCommands {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    @Inject(OPENAPI_ORGANIZATIONS) private readonly organizations: OpenapiOrganizations,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  /** `POST /orgs/{organizationId}/openapi`: 409 when the slug is taken. */
  async create(organizationId: string, slug: string, body: SourceBody, caller: Caller): Promise<void> {
    const allowed = await this.mayWrite(organizationId, caller);
    const specId = await this.claim(organizationId, slug, allowed, caller);
    await this.run({ kind: 'CreateSpec', specId, organizationId, slug, source: await this.source(body), by: userOf(caller), allowed, now: this.now() }, caller);
  }

  /** `PUT /orgs/{organizationId}/openapi/{specSlug}`: a new source for the spec holding the slug, or a new spec. */
  async put(organizationId: string, slug: string, body: SourceBody, caller: Caller, ifMatch?: number): Promise<void> {
    const allowed = await this.mayWrite(organizationId, caller);
    const specId = await this.claim(organizationId, slug, allowed, caller);
    const source = await this.source(body);
    const { state } = await this.commands.load(openapiSpecStream(specId), openapiSpecDecider);
    const common = { specId, organizationId, source, by: userOf(caller), allowed, now: this.now() };
    if (state.spec === null) await this.run({ kind: 'CreateSpec', ...common, slug }, caller, ifMatch);
    else await this.run({ kind: 'UpdateSpecSource', ...common }, caller, ifMatch);
  }

  async delete(organizationId: string, specId: string, caller: Caller, ifMatch?: number): Promise<void> {
    const allowed = await this.mayWrite(organizationId, caller);
    await this.run({ kind: 'DeleteSpec', specId, organizationId, by: userOf(caller), allowed, now: this.now() }, caller, ifMatch);
  }

  /** For the slug reactor: a deleted spec's slug becomes free (idempotent). */
  async releaseSlug(organizationId: string, slug: string, specId: string, caller: Caller): Promise<void> {
    await this.commands.run(openapiSlugsStream(organizationId), openapiSlugsDecider, { kind: 'ReleaseSlug', organizationId, slug, specId }, { caller });
  }

  /** The spec holding the slug: a new id claimed now, or the one that held it already. */
  private async claim(organizationId: string, slug: string, allowed: boolean, caller: Caller): Promise<string> {
    const outcome = await this.commands.run(openapiSlugsStream(organizationId), openapiSlugsDecider, { kind: 'ClaimSlug', organizationId, slug, specId: newId(), allowed }, { caller }, { wait: false });
    return outcome.state.claims.get(slug)!;
  }

  /** A `{ text }` source is stored as a blob (the events carry its hash). */
  private async source(body: SourceBody): Promise<OpenapiSource> {
    if (body.url !== undefined) return { kind: 'url', url: body.url };
    const stored = await this.blobs.put(Buffer.from(body.text!, 'utf8'));
    return { kind: 'text', hash: stored.hash, size: stored.size };
  }

  /** Whether the caller may write specs; 404 for people outside the organization. */
  private async mayWrite(organizationId: string, caller: Caller): Promise<boolean> {
    const standing = caller.kind === 'user' ? await this.organizations.roleOf(organizationId, caller.userId) : null;
    if (!standing?.member) throw DomainError.notFound(`no organization ${organizationId}`);
    return organizationPermissions(standing.role as OrganizationRole).createOpenAPISpec;
  }

  private async run(command: OpenapiSpecCommand, caller: Caller, ifMatch?: number): Promise<void> {
    await this.commands.run(openapiSpecStream(command.specId), openapiSpecDecider, command, { caller }, { ifMatch });
  }

  private now(): string {
    return this.commands.now().toISOString();
  }
}

function userOf(caller: Caller): string {
  return caller.kind === 'user' ? caller.userId : caller.kind === 'system' ? caller.id : 'admin';
}
