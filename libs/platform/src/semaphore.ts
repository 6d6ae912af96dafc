/** At most `permits` holders at once; the others wait in arrival order. */
export class Semaphore {
  private held = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly permits: number) {
    if (!Number.isInteger(permits) || permits < 1) throw new Error(`a semaphore needs at least one permit, got ${permits}`);
  }

  /** Runs `work` once a permit is free, and frees it when `work` settles. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.held >= this.permits) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.held++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.held--;
    }
  }
}
