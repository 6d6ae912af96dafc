import { WorkBudgetExceeded, type UntrustedTask, type UntrustedWork } from '#platform/untrusted-work/untrusted-work';
import { HTML_BODIES, OUTLINE_HTML, READ_MARKDOWN_FILE, READ_ZIP, type Timed } from './content.work';
import type { ImportConversions } from './import/import-plan';

/**
 * The conversion budget of one write or import (CONTENT_CONVERSION_TIME_MS): every task it hands
 * to the untrusted-work pool runs within what is left of it, and is charged the time it ran. Past
 * it the write is refused with 422, whatever the number of pages that shared it.
 */
export class ConversionBudget {
  private spentMs = 0;

  constructor(
    private readonly work: UntrustedWork,
    readonly budgetMs: number,
    /** What the budget is for, in the refusal: 'this write', 'this import'. */
    private readonly of: string,
  ) {}

  async run<Input, Result>(task: UntrustedTask<Input, Timed<Result>>, input: Input): Promise<Result> {
    const leftMs = Math.floor(this.budgetMs - this.spentMs);
    if (leftMs <= 0) throw this.exceeded(task.what);
    try {
      const { result, ms } = await this.work.run(task, input, { timeMs: leftMs });
      this.spentMs += ms;
      return result;
    } catch (error) {
      if (error instanceof WorkBudgetExceeded && error.kind === 'time') throw this.exceeded(task.what);
      throw error;
    }
  }

  private exceeded(what: string): WorkBudgetExceeded {
    this.spentMs = this.budgetMs;
    return new WorkBudgetExceeded('time', `${what} for ${this.of} took longer than its budget of ${this.budgetMs / 1000} s`);
  }
}

/** An import's conversions on the untrusted-work pool, charged to the import's budget. */
export function pooledImportConversions(budget: ConversionBudget): ImportConversions {
  return {
    zip: async (bytes, limits) => {
      const plan = await budget.run(READ_ZIP, { bytes, limits });
      // Buffers cross threads as plain Uint8Arrays.
      return {
        ...plan,
        files: plan.files.map((file) => ({ ...file, bytes: Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength) })),
      };
    },
    markdownPage: (text, fallbackTitle) => budget.run(READ_MARKDOWN_FILE, { text, fallbackTitle }),
    htmlOutline: (html, url) => budget.run(OUTLINE_HTML, { html, url }),
    htmlBodies: (pages, targets) => budget.run(HTML_BODIES, { pages, targets }),
  };
}
