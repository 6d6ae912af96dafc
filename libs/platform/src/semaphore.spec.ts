import { Semaphore } from './semaphore';

describe('Semaphore', () => {
  const deferred = () => {
    let resolve!: () => void;
    const promise = new Promise<void>((done) => (resolve = done));
    return { promise, resolve };
  };

  it('lets as many holders run at once as it has permits, the next one when one finishes', async () => {
    const semaphore = new Semaphore(2);
    const gates = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, i) => semaphore.run(async () => (started.push(i), await gate.promise, i)));
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    gates[1].resolve();
    await runs[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    gates[0].resolve();
    gates[2].resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
  });

  it('frees the permit of a holder that fails', async () => {
    const semaphore = new Semaphore(1);
    await expect(semaphore.run(() => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    await expect(semaphore.run(() => Promise.resolve('next'))).resolves.toBe('next');
  });

  it('refuses fewer than one permit', () => {
    expect(() => new Semaphore(0)).toThrow(/at least one permit/);
  });
});
