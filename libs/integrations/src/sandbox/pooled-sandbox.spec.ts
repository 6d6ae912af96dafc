import { WorkBudgetExceeded, type TaskBudget, type UntrustedTask, type UntrustedWork } from '#platform/untrusted-work/untrusted-work';
import { WorkerPool } from '#platform/untrusted-work/worker-pool';
import { outcomeOfEndedRun, POOL_MARGIN_MS, poolBudgetMs, renderComponentInPool, runEventHandlerInPool } from './pooled-sandbox';
import type { ComponentRenderRun, EventHandlerRun } from './sandbox.work';
import type { ScriptFetchPolicy } from './script-fetch';
import { DEFAULT_SANDBOX_LIMITS, MEMORY_LIMIT_EXCEEDED, TIME_LIMIT_EXCEEDED } from './script-sandbox';

const noPrivateNetworks: ScriptFetchPolicy = { contentSecurityPolicy: null, allowPrivateNetworks: false };

function handlerRun(script: string, fetch = noPrivateNetworks): EventHandlerRun {
  return { script, event: { type: 'installation_setup', installationId: 'i1' }, context: { environment: {} }, fetch };
}

function renderRun(script: string, componentId = 'c'): ComponentRenderRun {
  return { script, request: { componentId, props: {}, state: {}, context: {} }, fetch: noPrivateNetworks };
}

/** A pool that refuses every task with `error`, recording the budgets it was given. */
function refusingWork(error: Error): UntrustedWork & { budgets: Array<TaskBudget | undefined> } {
  const budgets: Array<TaskBudget | undefined> = [];
  return {
    budgets,
    run<Input, Result>(_task: UntrustedTask<Input, Result>, _input: Input, budget?: TaskBudget): Promise<Result> {
      budgets.push(budget);
      return Promise.reject(error);
    },
  };
}

describe('integration scripts on the untrusted-work pool', () => {
  describe('the pool as the backstop', () => {
    it('gives a run the sandbox’s own time limit plus a margin, so that the sandbox’s interrupt ends it first', async () => {
      expect(poolBudgetMs(undefined)).toBe(DEFAULT_SANDBOX_LIMITS.timeMs + POOL_MARGIN_MS);
      expect(poolBudgetMs({ timeMs: 250 })).toBe(250 + POOL_MARGIN_MS);
      const work = refusingWork(new WorkBudgetExceeded('time', 'over'));
      await runEventHandlerInPool(work, { ...handlerRun('module.exports = {}'), limits: { timeMs: 300 } });
      expect(work.budgets).toEqual([{ timeMs: 300 + POOL_MARGIN_MS }]);
    });

    it('answers a run the pool ended over its time budget as the sandbox’s time limit exceeded', async () => {
      const outcome = await renderComponentInPool(
        refusingWork(new WorkBudgetExceeded('time', 'rendering an integration component took longer than its budget of 6 s')),
        renderRun('x'),
      );
      expect(outcome).toMatchObject({ ok: false, error: TIME_LIMIT_EXCEEDED, logs: [] });
    });

    it('answers a run whose thread ran out of heap as the sandbox’s memory limit exceeded', async () => {
      const outcome = await runEventHandlerInPool(refusingWork(new WorkBudgetExceeded('memory', 'over')), handlerRun('x'));
      expect(outcome).toMatchObject({ ok: false, error: MEMORY_LIMIT_EXCEEDED, logs: [] });
    });

    it('leaves a full queue (503) to the caller', async () => {
      const busy = new WorkBudgetExceeded('queue', 'busy');
      await expect(renderComponentInPool(refusingWork(busy), renderRun('x'))).rejects.toBe(busy);
      expect(outcomeOfEndedRun(busy, 1)).toBeNull();
      expect(outcomeOfEndedRun(new Error('a worker thread stopped'), 1)).toBeNull();
    });
  });

  describe('on a real pool', () => {
    const pool = new WorkerPool({ threads: 1, memoryMb: 128, timeMs: 10_000, queueLimit: 8, queueTimeMs: 60_000 });
    afterAll(() => pool.close());

    it('renders a component on a thread of the pool, with the sandbox’s outcome as it is', async () => {
      const outcome = await renderComponentInPool(
        pool,
        renderRun(
          `module.exports = { components: { c: () => { console.log('on thread'); return { type: 'block', children: [], state: { n: 1 } }; } } };`,
        ),
      );
      expect(outcome).toMatchObject({ ok: true, result: { element: { type: 'block', children: [] }, state: { n: 1 } } });
      expect(outcome.logs.map((log) => log.message)).toEqual(['on thread']);
    });

    it('stops a handler that loops forever with the sandbox’s own time limit', async () => {
      const outcome = await runEventHandlerInPool(pool, {
        ...handlerRun('module.exports = { events: { installation_setup: () => { while (true) {} } } };'),
        limits: { timeMs: 200 },
      });
      expect(outcome).toMatchObject({ ok: false, error: TIME_LIMIT_EXCEEDED });
    });

    it('builds the script’s fetch on the thread from the policy: an origin outside connect-src is refused', async () => {
      const script = `module.exports = { events: { installation_setup: async () => { await fetch('https://elsewhere.example/x'); } } };`;
      const outcome = await runEventHandlerInPool(
        pool,
        handlerRun(script, { contentSecurityPolicy: 'connect-src https://api.example.com', allowPrivateNetworks: false }),
      );
      expect(outcome).toMatchObject({
        ok: false,
        error: "fetch of https://elsewhere.example refused by the integration's content security policy",
      });
    });

    it('resolves host names on the thread with the same resolver, and refuses one that resolves to a private address', async () => {
      const script = `module.exports = { events: { installation_setup: async () => { await fetch('http://localhost:9/x'); } } };`;
      const outcome = await runEventHandlerInPool(pool, handlerRun(script));
      expect(outcome.ok).toBe(false);
      expect(outcome.error).toMatch(/^localhost resolves to a non-public address \((127\.0\.0\.1|::1) is /);
    });
  });
});
