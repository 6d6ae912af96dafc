import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../../../platform/src/errors';
import { READ_STORE, type ReadStore } from '../../../read-store/src/read-store.port';
import { SITES, type SiteDoc } from '../site.projections';
import { conditionHolds } from './site-html.site';

/**
 * Who may read a published site, until the sites queries decide it: published `public` and
 * `unlisted` sites only, read with no claims (what a condition hides from such a reader is removed
 * from the site answered). Share keys and visitor tokens are not accepted yet: those sites are 404.
 */
@Injectable()
export class SiteReadable {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async readable(ref: { siteId: string } | { hostname: string }, access: { shareKey?: string; visitorToken?: string }): Promise<{ site: SiteDoc; claims: Record<string, unknown> }> {
    void access;
    const sites = this.reads.collection<SiteDoc>(SITES);
    const site = 'siteId' in ref ? await sites.get(ref.siteId) : (await sites.find({ hostname: ref.hostname, deleted: { $exists: false } }, { limit: 1, count: false })).items[0];
    if (!site || site.deleted || !site.published || (site.visibility !== 'public' && site.visibility !== 'unlisted')) throw DomainError.notFound('no published site here');
    const claims: Record<string, unknown> = {};
    const sections = site.sections.filter((section) => conditionHolds(section.condition, claims));
    const siteSpaces = site.siteSpaces.filter((siteSpace) => conditionHolds(siteSpace.condition, claims) && (siteSpace.sectionId === null || sections.some((section) => section.id === siteSpace.sectionId)));
    return { site: { ...site, sections, siteSpaces }, claims };
  }
}
