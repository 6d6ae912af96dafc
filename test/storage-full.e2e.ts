import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiSpec, type ApiSpec } from '#testing/api-spec';

/**
 * A full disk, for real: the service's DATA_DIR on a small tmpfs (mounting needs root; skipped with
 * the reason otherwise), filled by a file until the kernel answers ENOSPC, then freed.
 */
const mountPoint = mkdtempSync(join(tmpdir(), 'storage-full-'));
const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', mountPoint], { encoding: 'utf8' });
const skipReason =
  mounted.error?.message ?? (mounted.status === 0 ? undefined : mounted.stderr.trim() || `mount exited with ${mounted.status}`);
if (skipReason) console.log(`[skip] storage-full e2e: cannot mount a tmpfs here (${skipReason})`);
const maybe = skipReason ? describe.skip : describe;

afterAll(() => {
  if (!skipReason) spawnSync('umount', [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

/** Fills the file system with one file until ENOSPC; returns a function that frees the space. */
function fillDisk(directory: string): () => void {
  const path = join(directory, 'filler');
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  return () => rmSync(path, { force: true });
}

maybe('a full disk', () => {
  let spec: ApiSpec;
  beforeAll(async () => {
    const dataDir = join(mountPoint, 'data');
    mkdirSync(dataDir);
    spec = await apiSpec({ env: { DATA_DIR: dataDir } });
  });
  afterAll(() => spec?.close());

  /**
   * `/health` until its stores say `ok`, at most 160 tries a quarter second apart: the read models
   * write what they kept in memory at their next retry, whose backoff reaches 30 s.
   */
  async function healthOnceOk(): Promise<{ status: number; body: any }> {
    let health = await spec.request('GET', '/health');
    for (let tries = 0; health.status !== 200 && tries < 160; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      health = await spec.request('GET', '/health');
    }
    return health;
  }

  const unhandled: unknown[] = [];
  const listen = (reason: unknown) => void unhandled.push(reason);
  beforeAll(() => process.on('unhandledRejection', listen));
  afterAll(() => process.off('unhandledRejection', listen));

  /**
   * Hands the read models a commit larger than the free pages their file holds, so that with the
   * disk full they are the store that fills first, in every run (the log may still find free pages
   * for a few appends); resolves once they say they keep their commits in memory.
   */
  async function fillReadModelsFirst(): Promise<{ ok: boolean; detail?: string }> {
    const reads = spec.service.runtime.stores.reads;
    await reads.collection('storage_full_probe').put({ _id: 'probe', filler: 'x'.repeat(4 * 1024 * 1024) });
    let health = await reads.health();
    for (let tries = 0; health.ok && tries < 200; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      health = await reads.health();
    }
    return health;
  }

  it('given no space left, a write answers 507 in the envelope, what was acknowledged reads back, /health fails; once space is freed, writes work again without a restart', async () => {
    const ada = await spec.createUser('Ada');
    const before = await spec.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'Before' } });
    expect(before.status).toBe(201);

    const freeSpace = fillDisk(mountPoint);
    try {
      expect(await fillReadModelsFirst()).toMatchObject({ ok: false, detail: expect.stringContaining('kept in memory, retried') });
      // LMDB reuses the free pages the log's file already holds: the first appends may still fit.
      // Each of them is applied by the projections in memory and reads back, never a 404.
      let refused = await spec.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'During' } });
      for (let tries = 0; refused.status === 201 && tries < 200; tries++) {
        const created = await spec.request('GET', `/v1/orgs/${(refused.body as { id: string }).id}`, { token: ada.token });
        expect(created).toMatchObject({ status: 200, body: { title: 'During' } });
        refused = await spec.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'During' } });
      }
      expect(refused).toMatchObject({
        status: 507,
        body: { error: { code: 507, message: 'the server has no space left to store this write; nothing was stored' } },
      });
      const blob = spec.service.runtime.stores.blobs.put(Buffer.alloc(200_000, 7));
      await expect(blob).rejects.toMatchObject({ name: 'StorageFullError' });

      const read = await spec.request('GET', `/v1/orgs/${(before.body as { id: string }).id}`, { token: ada.token });
      expect(read).toMatchObject({ status: 200, body: { title: 'Before' } });
      const health = await spec.request('GET', '/health');
      expect(health.status).toBe(503);
      expect(health.body).toMatchObject({ status: 'unavailable', stores: { eventStore: { ok: false }, blobStore: { ok: false } } });
    } finally {
      freeSpace();
    }

    const after = await spec.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'After' } });
    expect(after.status).toBe(201);
    await expect(spec.service.runtime.stores.blobs.put(Buffer.alloc(200_000, 7))).resolves.toMatchObject({ size: 200_000 });
    const health = await healthOnceOk();
    expect(health).toMatchObject({
      status: 200,
      body: { status: 'ok', stores: { eventStore: { ok: true }, readStore: { ok: true }, blobStore: { ok: true } } },
    });
    const read = await spec.request('GET', `/v1/orgs/${(after.body as { id: string }).id}`, { token: ada.token });
    expect(read).toMatchObject({ status: 200, body: { title: 'After' } });
    expect(unhandled).toEqual([]);
  }, 120_000);
});
