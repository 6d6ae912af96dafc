import { WorkBudgetExceeded, type TaskBudget, type UntrustedTask, type UntrustedWork } from '#platform/untrusted-work/untrusted-work';
import { ConversionBudget } from './content-conversions';
import { CONVERT_MARKDOWN } from './content.work';

/** A pool that answers at once, each task having "run" the time it is told, over its budget past it. */
class FakePool implements UntrustedWork {
  readonly budgets: number[] = [];
  constructor(private readonly runsMs: number[]) {}

  async run<Input, Result>(task: UntrustedTask<Input, Result>, _input: Input, budget?: TaskBudget): Promise<Result> {
    const timeMs = budget?.timeMs ?? Infinity;
    this.budgets.push(timeMs);
    const ms = this.runsMs.shift() ?? 0;
    if (ms > timeMs) throw new WorkBudgetExceeded('time', `${task.what} took longer than its budget of ${timeMs / 1000} s`);
    return { result: [], ms } as Result;
  }
}

const convert = (budget: ConversionBudget) => budget.run(CONVERT_MARKDOWN, { bodies: ['# x'], refs: [] });

describe('ConversionBudget', () => {
  it('gives each task what the tasks before it left of the one budget', async () => {
    const pool = new FakePool([4000, 3500, 2000]);
    const budget = new ConversionBudget(pool, 10_000, 'this write');
    await convert(budget);
    await convert(budget);
    await convert(budget);
    expect(pool.budgets).toEqual([10_000, 6000, 2500]);
  });

  it('refuses a task with 422 naming the budget of the whole write once the tasks before used it up, without running it', async () => {
    const pool = new FakePool([6000, 4000]);
    const budget = new ConversionBudget(pool, 10_000, 'this write');
    await convert(budget);
    await convert(budget);
    const refused = await convert(budget).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WorkBudgetExceeded);
    expect(refused).toMatchObject({ status: 422, message: 'converting markdown for this write took longer than its budget of 10 s' });
    expect(pool.budgets).toEqual([10_000, 4000]);
  });

  it('a task the pool ended over what was left is refused with 422 naming the whole budget, not what was left', async () => {
    const pool = new FakePool([7000, 5000]);
    const budget = new ConversionBudget(pool, 10_000, 'this import');
    await convert(budget);
    await expect(convert(budget)).rejects.toMatchObject({
      status: 422,
      message: 'converting markdown for this import took longer than its budget of 10 s',
    });
  });
});
