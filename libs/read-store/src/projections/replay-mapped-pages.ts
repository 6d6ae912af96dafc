import { readFileSync } from 'node:fs';
import type { ReplayMemoryGuard } from './replay-heap';

/**
 * Keeps the file-backed resident memory of a replay under a budget. The embedded stores read and
 * write their files through memory maps, and every page a replay touches stays resident in the
 * process until the map is closed: a million-event rebuild read a log of 767 MB and wrote read
 * models of 1.7 GB, and its resident memory reached 3 GB of which 2.3 GB were those pages. After a
 * full batch, when the process's file-backed resident memory is above the budget, this asks the
 * stores to close their maps and open them again (`releaseMappedPages`), which drops those pages.
 *
 * Only while the replay is alone on its stores (`active`): the CLI's `rebuild`, and the service's
 * catch-up at start, during which the front door answers 503 and nothing else reads the stores;
 * once the service serves, its requests use the same maps. Where the operating system does not
 * say how much is file-backed (no `/proc/self/status`), nothing is released.
 */
export class ReplayMappedPages implements ReplayMemoryGuard {
  /** Releases so far. */
  releases = 0;
  private readonly active: () => boolean;
  private readonly residentFileBytes: () => number | null;

  constructor(
    private readonly budgetBytes: number,
    private readonly release: () => Promise<void>,
    options: { active?: () => boolean; residentFileBytes?: () => number | null } = {},
  ) {
    this.active = options.active ?? (() => true);
    this.residentFileBytes = options.residentFileBytes ?? processResidentFileBytes;
  }

  async afterFullBatch(): Promise<void> {
    if (!this.active()) return;
    const resident = this.residentFileBytes();
    if (resident === null || resident <= this.budgetBytes) return;
    await this.release();
    this.releases += 1;
  }
}

/** `RssFile` of /proc/self/status in bytes (Linux), or null where there is no such figure. */
export function processResidentFileBytes(): number | null {
  try {
    const match = /^RssFile:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'latin1'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}
