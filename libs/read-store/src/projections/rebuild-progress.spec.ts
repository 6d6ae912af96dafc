import { rebuildProgressReporter } from './rebuild-progress';

const progress = (fraction: number, applied: number) => ({ fraction, applied, position: BigInt(applied), head: 100n });

describe('rebuild progress', () => {
  it('given a terminal, then it draws a bar that reaches 100%', () => {
    let screen = '';
    const tty = {
      isTTY: true,
      write: (text: string) => (screen += text),
      columns: 100,
      cursorTo: () => true,
      clearLine: () => true,
      moveCursor: () => true,
      on: () => tty,
      removeListener: () => tty,
    };
    const reporter = rebuildProgressReporter(tty);
    reporter.update(progress(0.5, 50));
    reporter.finish(100, 0.2);
    expect(screen).toContain('rebuilding read models [');
    expect(screen).toContain('100% | 100 events');
    expect(screen).toContain('rebuilt read models from 100 events');
  });

  it('given redirected output, then it prints one line per tenth', () => {
    const lines: string[] = [];
    const reporter = rebuildProgressReporter({ isTTY: false, write: (text: string) => lines.push(text.trim()) });
    for (let applied = 1; applied <= 100; applied++) reporter.update(progress(applied / 100, applied));
    reporter.finish(100, 1.23);
    expect(lines[0]).toBe('rebuilding read models: 0% (1 events)');
    expect(lines).toHaveLength(12);
    expect(lines.at(-2)).toBe('rebuilding read models: 100% (100 events)');
    expect(lines.at(-1)).toBe('rebuilt read models from 100 events in 1.2 s');
  });
});
