import 'reflect-metadata';
import { runCli } from './cli';

/** `npm run cli -- <command>`: wires the process to `runCli` (see cli.ts for the commands). */

// `npm run cli -- history x | head` closes stdout early: that is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

/** Exits once everything written so far has been flushed (pipes are asynchronous). */
function exit(code: number): void {
  process.exitCode = code;
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr }, process.env).then(exit, (error: unknown) => {
  process.stderr.write(`unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  exit(1);
});
