import { Inject } from '@nestjs/common';
import { Command, CommandHandler } from '@nestjs/cqrs';
import { BLOB_STORE, type BlobStore } from '#blob-store/blob-store.port';
import type { Caller } from '#platform/http/auth';
import { newId } from '#platform/ids';
import { DecidingHandler } from '#runtime/command-handler';
import { OpenapiAccess } from './openapi.access';
import { openapiSlugsDecider, openapiSlugsStream, openapiSpecDecider, openapiSpecStream } from './openapi.decider';
import type { OpenapiSource } from './openapi.events';

/** A source as a request gives it. */
export type SourceBody = { url: string; text?: undefined } | { text: string; url?: undefined };

/*
 * The spec writes. Members with `createOpenAPISpec` (role create and above) create, update and
 * delete specs. A slug is claimed on the organization's slug stream first: the claim decides which
 * spec a slug names, so two concurrent creates of one slug make one spec (the other is 409) and a
 * PUT updates the spec holding the slug or creates it.
 */

/** A `{ text }` source is stored as a blob (the events carry its hash). */
async function storedSource(blobs: BlobStore, body: SourceBody): Promise<OpenapiSource> {
  if (body.url !== undefined) return { kind: 'url', url: body.url };
  const stored = await blobs.put(Buffer.from(body.text!, 'utf8'));
  return { kind: 'text', hash: stored.hash, size: stored.size };
}

function userOf(caller: Caller): string {
  return caller.kind === 'user' ? caller.userId : caller.kind === 'system' ? caller.id : 'admin';
}

/** `POST /orgs/{organizationId}/openapi`: 409 when the slug is taken. */
export class CreateOpenapiSpec extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly slug: string,
    readonly source: SourceBody,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(CreateOpenapiSpec)
export class CreateOpenapiSpecHandler extends DecidingHandler {
  constructor(
    private readonly access: OpenapiAccess,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {
    super();
  }

  async execute({ organizationId, slug, source, caller }: CreateOpenapiSpec): Promise<void> {
    const allowed = await this.access.mayWrite(organizationId, caller);
    // The spec holding the slug: a new id claimed now, or the one that held it already.
    const claimed = await this.decide(
      openapiSlugsStream(organizationId),
      openapiSlugsDecider,
      { kind: 'ClaimSlug', organizationId, slug, specId: newId(), allowed },
      { caller, wait: false },
    );
    const specId = claimed.state.claims.get(slug)!;
    await this.decide(
      openapiSpecStream(specId),
      openapiSpecDecider,
      {
        kind: 'CreateSpec',
        specId,
        organizationId,
        slug,
        source: await storedSource(this.blobs, source),
        by: userOf(caller),
        allowed,
        now: this.now(),
      },
      { caller },
    );
  }
}

/** `PUT /orgs/{organizationId}/openapi/{specSlug}`: a new source for the spec holding the slug, or a new spec. */
export class PutOpenapiSpec extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly slug: string,
    readonly source: SourceBody,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(PutOpenapiSpec)
export class PutOpenapiSpecHandler extends DecidingHandler {
  constructor(
    private readonly access: OpenapiAccess,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {
    super();
  }

  async execute({ organizationId, slug, source: body, caller, ifMatch }: PutOpenapiSpec): Promise<void> {
    const allowed = await this.access.mayWrite(organizationId, caller);
    // The spec holding the slug: a new id claimed now, or the one that held it already.
    const claimed = await this.decide(
      openapiSlugsStream(organizationId),
      openapiSlugsDecider,
      { kind: 'ClaimSlug', organizationId, slug, specId: newId(), allowed },
      { caller, wait: false },
    );
    const specId = claimed.state.claims.get(slug)!;
    const source = await storedSource(this.blobs, body);
    const { state } = await this.load(openapiSpecStream(specId), openapiSpecDecider);
    const common = { specId, organizationId, source, by: userOf(caller), allowed, now: this.now() };
    if (state.spec === null)
      await this.decide(openapiSpecStream(specId), openapiSpecDecider, { kind: 'CreateSpec', ...common, slug }, { caller, ifMatch });
    else await this.decide(openapiSpecStream(specId), openapiSpecDecider, { kind: 'UpdateSpecSource', ...common }, { caller, ifMatch });
  }
}

/** `DELETE /orgs/{organizationId}/openapi/{specSlug}`, for the spec the slug names (`GetOpenapiSpecId`). */
export class DeleteOpenapiSpec extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly specId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(DeleteOpenapiSpec)
export class DeleteOpenapiSpecHandler extends DecidingHandler {
  constructor(private readonly access: OpenapiAccess) {
    super();
  }

  async execute({ organizationId, specId, caller, ifMatch }: DeleteOpenapiSpec): Promise<void> {
    const allowed = await this.access.mayWrite(organizationId, caller);
    await this.decide(
      openapiSpecStream(specId),
      openapiSpecDecider,
      { kind: 'DeleteSpec', specId, organizationId, by: userOf(caller), allowed, now: this.now() },
      { caller, ifMatch },
    );
  }
}

/** For the slug reactor: a deleted spec's slug becomes free, only while that spec still holds it (idempotent; no permission check). */
export class ReleaseSpecSlug extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly slug: string,
    readonly specId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(ReleaseSpecSlug)
export class ReleaseSpecSlugHandler extends DecidingHandler {
  async execute({ organizationId, slug, specId, caller }: ReleaseSpecSlug): Promise<void> {
    await this.decide(
      openapiSlugsStream(organizationId),
      openapiSlugsDecider,
      { kind: 'ReleaseSlug', organizationId, slug, specId },
      { caller },
    );
  }
}

export const openapiCommandHandlers = [CreateOpenapiSpecHandler, PutOpenapiSpecHandler, DeleteOpenapiSpecHandler, ReleaseSpecSlugHandler];
