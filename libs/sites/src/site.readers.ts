import { timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { createLocalJWKSet, JSONWebKeySet, JWTPayload } from 'jose';
import { CLOCK, type Clock } from '#platform/clock';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { DomainError } from '#platform/errors';
import { jose } from '#platform/lazy-package';
import { guardedRequest } from '#platform/outbound/guarded-request';
import { derivedSecret, secretsKeyFrom } from '#platform/secrets';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { evaluateCondition } from './site.conditions';
import { KeySetCache } from './site.jwks';
import { SITES, type SiteDoc } from './site.projections';

/** What a reader of a published site presents: a share key, a visitor token, or nothing. */
export interface ReaderAccess {
  shareKey?: string;
  visitorToken?: string;
  /** The reader is a member of the site's organization (signed in to the API): every visibility is open to them. */
  member?: boolean;
}

/** A published site as one reader sees it: what the reader's claims hide is left out. */
export interface ReaderView {
  site: SiteDoc;
  claims: Record<string, unknown>;
}

/** Longest visitor token read; anything longer is no token. */
const MAX_TOKEN_LENGTH = 8192;
/** A key set is fetched within 5 s and 256 KiB, used 5 minutes, a failure remembered 30 s; 100 URLs kept. */
const JWKS_LIMITS = { timeMs: 5_000, maxBytes: 256 * 1024, cacheMs: 5 * 60_000, failureMs: 30_000, maxUrls: 100 };

function sameKey(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The site as published for `claims`: its live (not draft) sections, section groups and site
 * spaces whose conditions hold, the rest left out (a draft group's sections and a left-out
 * section's site spaces with them).
 */
export function seenBy(site: SiteDoc, claims: Record<string, unknown>): SiteDoc {
  const seen = (item: { condition: string | null; draft?: boolean }) =>
    item.draft !== true && (item.condition === null || evaluateCondition(item.condition, claims));
  const groups = (site.groups ?? []).filter((group) => group.draft !== true);
  const liveGroups = new Set(groups.map((group) => group.id));
  const sections = site.sections.filter((section) => seen(section) && (!section.sectionGroup || liveGroups.has(section.sectionGroup)));
  const shownSections = new Set(sections.map((section) => section.id));
  const siteSpaces = site.siteSpaces.filter(
    (siteSpace) => seen(siteSpace) && (siteSpace.sectionId === null || shownSections.has(siteSpace.sectionId)),
  );
  return { ...site, groups, sections, siteSpaces };
}

/**
 * The site as a reader without claims sees it, kept per stored document: the read store hands out
 * one unchanging object per document version (a change stores a new one), and most readers carry
 * no claims. Frozen, since every such reader shares it.
 */
const seenByNobody = new WeakMap<SiteDoc, SiteDoc>();

function seenWithoutClaims(site: SiteDoc): SiteDoc {
  let seen = seenByNobody.get(site);
  if (!seen) {
    seen = seenBy(site, {});
    Object.freeze(seen.sections);
    Object.freeze(seen.siteSpaces);
    Object.freeze(seen.groups);
    seenByNobody.set(site, Object.freeze(seen));
  }
  return seen;
}

/**
 * Who may read a published site: anyone for `public` and `unlisted`; a holder of an active share
 * link's key for `share-link`; a visitor with a valid token for `visitor-auth`; members of the
 * site's organization (through the API, signed in) whatever the visibility. A visitor token is
 * a JWT signed with the site's own HS256 key, or (when the site names a JWKS URL) with one of
 * that set's RS256 keys; it must carry `exp`. A token of a JWKS URL's keys must also name the site's
 * id in `aud`, since other sites may name the same key set, and carry the site's `issuer` as `iss`
 * when the site names one. Its claims feed the sections' and site spaces' conditions on every
 * visibility. Whoever may not read the site gets 404, as if it did not exist.
 */
@Injectable()
export class SiteReaders {
  private readonly secretsKey: Buffer;
  private readonly keySets: KeySetCache<ReturnType<typeof createLocalJWKSet>>;

  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) clock: Clock,
  ) {
    this.secretsKey = secretsKeyFrom(config);
    this.keySets = new KeySetCache((url) => this.fetchKeySet(url), JWKS_LIMITS, clock);
  }

  /** The site's HS256 key for visitor tokens, as its administrators are shown it. */
  visitorKey(site: Pick<SiteDoc, '_id' | 'visitorAuth'>): string {
    return derivedSecret(this.secretsKey, `site-visitor-auth:${site._id}:${site.visitorAuth?.keyGeneration ?? 0}`);
  }

  /** The published site by id (in `organizationId` when given) or by custom hostname, as this reader sees it; 404 when they may not read it. */
  async readable(ref: { siteId: string } | { hostname: string }, access: ReaderAccess, organizationId?: string): Promise<ReaderView> {
    const sites = this.reads.collection<SiteDoc>(SITES);
    const site =
      'siteId' in ref
        ? await sites.get(ref.siteId)
        : (await sites.find({ hostname: ref.hostname, deleted: { $exists: false } }, { limit: 1 })).items[0];
    const name = 'siteId' in ref ? ref.siteId : ref.hostname;
    if (!site || site.deleted || !site.published || (organizationId !== undefined && site.organizationId !== organizationId))
      throw DomainError.notFound(`no published site ${name}`);
    const claims = access.visitorToken !== undefined ? await this.claimsOf(site, access.visitorToken) : null;
    const admitted =
      access.member === true ||
      site.visibility === 'public' ||
      site.visibility === 'unlisted' ||
      (site.visibility === 'share-link' &&
        access.shareKey !== undefined &&
        (site.shareLinks ?? []).some((link) => link.active && sameKey(access.shareKey!, link.key))) ||
      (site.visibility === 'visitor-auth' && claims !== null);
    if (!admitted) throw DomainError.notFound(`no published site ${name}`);
    return claims === null ? { site: seenWithoutClaims(site), claims: {} } : { site: seenBy(site, claims), claims };
  }

  /** The token's claims when it verifies for this site, else null. */
  private async claimsOf(site: SiteDoc, token: string): Promise<Record<string, unknown> | null> {
    if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return null;
    try {
      const { decodeProtectedHeader, jwtVerify } = jose();
      const { alg } = decodeProtectedHeader(token);
      let payload: JWTPayload;
      if (alg === 'HS256') {
        ({ payload } = await jwtVerify(token, new TextEncoder().encode(this.visitorKey(site)), {
          algorithms: ['HS256'],
          requiredClaims: ['exp'],
        }));
      } else if (alg === 'RS256' && site.visitorAuth?.jwksUrl) {
        const { jwksUrl, issuer } = site.visitorAuth;
        ({ payload } = await jwtVerify(token, await this.keySets.get(jwksUrl), {
          algorithms: ['RS256'],
          requiredClaims: ['exp'],
          audience: site._id,
          ...(issuer ? { issuer } : {}),
        }));
      } else {
        return null;
      }
      return { ...payload };
    } catch {
      return null; // malformed, badly signed, expired, or the key set could not be had
    }
  }

  /** A JWKS URL's keys, fetched through the guarded request (kept by `keySets`). */
  private async fetchKeySet(url: string): Promise<ReturnType<typeof createLocalJWKSet>> {
    const response = await guardedRequest(url, {
      allowPrivateNetworks: this.config.sitesAllowPrivateNetworks,
      timeMs: JWKS_LIMITS.timeMs,
      maxBytes: JWKS_LIMITS.maxBytes,
      headers: { accept: 'application/json' },
    });
    if (response.status !== 200) throw new Error(`the key set answered ${response.status}`);
    return jose().createLocalJWKSet(JSON.parse(response.body.toString('utf8')) as JSONWebKeySet);
  }
}
