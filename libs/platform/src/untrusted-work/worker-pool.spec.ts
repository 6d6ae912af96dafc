import { threadId } from 'node:worker_threads';
import { DomainError } from '../errors';
import { WorkBudgetExceeded } from './untrusted-work';
import { WorkerPool, type WorkerPoolOptions } from './worker-pool';
import { ALLOCATE, ECHO, FAIL, MISSING, REFUSE, SPIN } from './testing/pool-tasks';

describe('WorkerPool (untrusted work off the request thread)', () => {
  const pools: WorkerPool[] = [];
  const pool = (options: Partial<WorkerPoolOptions> = {}): WorkerPool => {
    const created = new WorkerPool({ threads: 1, memoryMb: 64, timeMs: 30_000, queueLimit: 8, queueTimeMs: 60_000, ...options });
    pools.push(created);
    return created;
  };
  afterAll(() => Promise.all(pools.map((created) => created.close())));
  /** One pool for the tests that neither end its thread nor need other limits: starting a thread is what costs. */
  let sharedPool: WorkerPool | undefined;
  const shared = (): WorkerPool => (sharedPool ??= pool());

  it('runs a task on another thread and answers its result', async () => {
    const answer = await shared().run(ECHO, { value: { nested: [1, 'two'] } });
    expect(answer.value).toEqual({ nested: [1, 'two'] });
    expect(answer.threadId).not.toBe(threadId);
  });

  it('keeps the calling thread answering while a task computes', async () => {
    const work = shared();
    await work.run(ECHO, { value: 'warm' });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    await work.run(SPIN, { ms: 300 });
    clearInterval(ticker);
    expect(ticks).toBeGreaterThan(0);
  });

  it('ends a task over its time budget with a 422, and the next task runs on a new thread', async () => {
    const work = pool();
    const before = await work.run(ECHO, { value: 1 });
    const overrun = work.run(SPIN, { ms: null }, { timeMs: 200 });
    await expect(overrun).rejects.toBeInstanceOf(WorkBudgetExceeded);
    await expect(overrun).rejects.toMatchObject({ kind: 'time', status: 422, message: 'spinning took longer than its budget of 0.2 s' });
    const after = await work.run(ECHO, { value: 2 });
    expect(after.threadId).not.toBe(before.threadId);
  });

  it('ends a task over the memory budget with a 422, and the pool goes on', async () => {
    const work = pool({ memoryMb: 32 });
    await expect(work.run(ALLOCATE, {})).rejects.toMatchObject({
      kind: 'memory',
      status: 422,
      message: 'allocating needed more than its memory budget of 32 MiB',
    });
    expect((await work.run(ECHO, { value: 'still here' })).value).toBe('still here');
  });

  it("keeps a domain error's status, message and details", async () => {
    const refused = shared().run(REFUSE, { message: 'the page is larger than 1 MiB' });
    await expect(refused).rejects.toBeInstanceOf(DomainError);
    await expect(refused).rejects.toMatchObject({ status: 413, message: 'the page is larger than 1 MiB', details: { limit: 1 } });
  });

  it("keeps another error's name, message and code", async () => {
    await expect(shared().run(FAIL, {})).rejects.toMatchObject({
      name: 'ProcessingFailure',
      message: 'upstream refused',
      code: 'FETCH_FAILED',
    });
  });

  it('fails a task whose module exports no such function', async () => {
    await expect(shared().run(MISSING, {})).rejects.toThrow(/exports no task named noSuchTask/);
  });

  it('refuses work past its queue with a 503 and Retry-After', async () => {
    const work = pool({ queueLimit: 1 });
    const running = work.run(SPIN, { ms: 200 });
    const waiting = work.run(ECHO, { value: 'queued' });
    await expect(work.run(ECHO, { value: 'one too many' })).rejects.toMatchObject({
      kind: 'queue',
      status: 503,
      headers: { 'Retry-After': '5' },
    });
    await expect(running).resolves.toBe('done');
    await expect(waiting).resolves.toMatchObject({ value: 'queued' });
  });

  it('runs as many tasks at once as it has threads', async () => {
    const work = pool({ threads: 2 });
    const answers = await Promise.all([
      work.run(ECHO, { value: 'a' }),
      work.run(SPIN, { ms: 100 }).then(() => work.run(ECHO, { value: 'b' })),
      work.run(ECHO, { value: 'c' }),
    ]);
    expect(answers.map((answer) => answer.value)).toEqual(['a', 'b', 'c']);
    expect(work.load.threads).toBeLessThanOrEqual(2);
  });
});
