import { exited, spawnTypeScript } from '../../../test/support/child-process';

describe('the process handler of unhandled rejections', () => {
  it('given a rejection nothing handles, then it is logged with its stack, counted in unhandled_rejections_total, and the process stays up', async () => {
    const lines: string[] = [];
    const child = spawnTypeScript('unhandled-rejection.ts', [], (line) => lines.push(line));
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    // The log is written asynchronously: its line may come before or after the others.
    const logged = lines.filter((line) => line.startsWith('{'));
    const rest = lines.filter((line) => !line.startsWith('{'));
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0])).toMatchObject({
      level: 'error',
      msg: 'unhandled promise rejection; the process carries on',
      err: { message: 'nobody listens to this one', stack: expect.stringContaining('unhandled-rejection.ts') },
    });
    expect(rest).toEqual(['unhandled_rejections_total 1', 'still up']);
  });
});
