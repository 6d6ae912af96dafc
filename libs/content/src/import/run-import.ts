import { ImportFailure } from './import-failure';
import { type ImportConversions, type ImportLimits, type ImportPlan, type ImportSource, type NewId, importLimits } from './import-plan';
import { importMarkdown } from './markdown-import';
import type { LookupAddresses } from './safe-fetch';
import { importWebsite } from './website-import';
import { importZip } from './zip-import';

export interface ImportRequest {
  source: ImportSource;
  url: string;
}

export interface RunImportOptions {
  /** From IMPORT_ALLOW_PRIVATE_NETWORKS; false in production. */
  allowPrivateNetworks: boolean;
  /** The service's id generator (20 base-62 characters). */
  newId: NewId;
  /** Where parsing and converting what was downloaded runs (the untrusted-work pool, in the service). */
  conversions: ImportConversions;
  /** Overrides of DEFAULT_IMPORT_LIMITS. */
  limits?: Partial<ImportLimits>;
  /** Resolves host names; DNS unless given. */
  lookup?: LookupAddresses;
}

/**
 * Fetches and converts what an import request points at. Fails with ImportFailure (status 400, 408,
 * 413 or 422) when the source cannot be imported at all; what is merely left out is in the plan's
 * warnings.
 */
export async function runImport(request: ImportRequest, options: RunImportOptions): Promise<ImportPlan> {
  const limits = importLimits(options.limits);
  const deps = {
    newId: options.newId,
    conversions: options.conversions,
    allowPrivateNetworks: options.allowPrivateNetworks,
    lookup: options.lookup,
  };
  switch (request.source) {
    case 'website':
      return importWebsite(request.url, limits, deps);
    case 'markdown':
      return importMarkdown(request.url, limits, deps);
    case 'zip':
      return importZip(request.url, limits, deps);
    default:
      throw new ImportFailure(400, `unknown import source ${JSON.stringify(request.source)}; expected website, markdown or zip`);
  }
}
