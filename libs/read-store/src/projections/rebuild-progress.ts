import { SingleBar } from 'cli-progress';
import type { RebuildProgress } from './projection-runner';

export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

/**
 * Progress of a rebuild for a person watching: a live bar on a terminal, otherwise one line per
 * tenth of the way (so CI logs and redirected output stay readable).
 */
export function rebuildProgressReporter(output: ProgressOutput = process.stderr): {
  update(progress: RebuildProgress): void;
  finish(applied: number, seconds: number): void;
} {
  if (output.isTTY) {
    const bar = new SingleBar({
      stream: output as NodeJS.WritableStream,
      format: 'rebuilding read models [{bar}] {percentage}% | {applied} events',
      hideCursor: true,
      noTTYOutput: false,
    });
    bar.start(100, 0, { applied: 0 });
    return {
      update: (p) => bar.update(Math.floor(p.fraction * 100), { applied: p.applied }),
      finish: (applied, seconds) => {
        bar.update(100, { applied });
        bar.stop();
        output.write(`rebuilt read models from ${applied} events in ${seconds.toFixed(1)} s\n`);
      },
    };
  }
  let lastTenth = -1;
  return {
    update(p) {
      const tenth = Math.floor(p.fraction * 10);
      if (tenth === lastTenth) return;
      lastTenth = tenth;
      output.write(`rebuilding read models: ${tenth * 10}% (${p.applied} events)\n`);
    },
    finish: (applied, seconds) => output.write(`rebuilt read models from ${applied} events in ${seconds.toFixed(1)} s\n`),
  };
}
