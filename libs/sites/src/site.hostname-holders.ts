import { Inject, Injectable } from '@nestjs/common';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { SITES, type SiteDoc } from './site.projections';

/** Which site holds a custom hostname (the sites' read model). */
@Injectable()
export class SiteHostnames {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  /** The id of the live site whose hostname `hostname` is, or null when none has it. */
  async holder(hostname: string): Promise<string | null> {
    if (hostname === '' || hostname.length > 512) return null;
    const found = await this.reads.collection<SiteDoc>(SITES).find({ hostname, deleted: { $exists: false } }, { limit: 1, count: false });
    return found.items[0]?._id ?? null;
  }
}
