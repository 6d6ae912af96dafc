import { ConfigError, loadConfig } from '#platform/config';
import { ReplayMappedPages, processResidentFileBytes } from './replay-mapped-pages';

const MB = 1024 * 1024;

/** Resident file-backed bytes the spec sets; a release leaves `afterRelease` behind. */
function fakeProcess(afterRelease: number) {
  const state = { resident: 0 as number | null, releases: 0 };
  const release = async () => {
    state.releases += 1;
    state.resident = afterRelease;
  };
  return { state, release, resident: () => state.resident };
}

describe('ReplayMappedPages', () => {
  it('given mapped pages within the budget, when a full batch is done, then nothing is released', async () => {
    const mapped = fakeProcess(10 * MB);
    const guard = new ReplayMappedPages(256 * MB, mapped.release, { residentFileBytes: mapped.resident });
    mapped.state.resident = 256 * MB;
    await guard.afterFullBatch();
    expect(mapped.state.releases).toBe(0);
  });

  it('given mapped pages over the budget, when a full batch is done, then the stores release them once', async () => {
    const mapped = fakeProcess(10 * MB);
    const guard = new ReplayMappedPages(256 * MB, mapped.release, { residentFileBytes: mapped.resident });
    mapped.state.resident = 257 * MB;
    await guard.afterFullBatch();
    await guard.afterFullBatch();
    expect(mapped.state.releases).toBe(1);
    expect(guard.releases).toBe(1);
  });

  it('given a replay no longer alone on its stores, then nothing is released whatever is mapped', async () => {
    const mapped = fakeProcess(10 * MB);
    let alone = true;
    const guard = new ReplayMappedPages(256 * MB, mapped.release, { residentFileBytes: mapped.resident, active: () => alone });
    mapped.state.resident = 300 * MB;
    await guard.afterFullBatch();
    mapped.state.resident = 300 * MB;
    alone = false;
    await guard.afterFullBatch();
    expect(mapped.state.releases).toBe(1);
  });

  it('given a system that does not say how much is mapped, then nothing is ever released', async () => {
    const mapped = fakeProcess(0);
    const guard = new ReplayMappedPages(0, mapped.release, { residentFileBytes: mapped.resident });
    mapped.state.resident = null;
    await guard.afterFullBatch();
    expect(mapped.state.releases).toBe(0);
  });

  it('given this process on Linux, then its file-backed resident memory is a positive number of bytes', () => {
    const resident = processResidentFileBytes();
    if (resident === null) return console.log('skipped: no /proc/self/status here');
    // The node binary and its libraries alone are mapped from files.
    expect(resident).toBeGreaterThan(MB);
    expect(resident % 1024).toBe(0);
  });
});

describe('REPLAY_MAPPED_MB', () => {
  it('is 128 MiB unless set', () => {
    expect(loadConfig({}).replayMappedMb).toBe(128);
    expect(loadConfig({ REPLAY_MAPPED_MB: '64' }).replayMappedMb).toBe(64);
  });

  it('refuses a budget that is not a positive number of MiB', () => {
    expect(() => loadConfig({ REPLAY_MAPPED_MB: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ REPLAY_MAPPED_MB: 'lots' })).toThrow(ConfigError);
  });
});
