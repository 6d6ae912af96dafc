import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const REGISTER = join(__dirname, '..', '..', 'scripts', 'register-ts.js');

/** Starts a TypeScript child script with the SWC hook; stdout is delivered line by line. */
export function spawnTypeScript(script: string, args: string[], onLine: (line: string) => void = () => {}): ChildProcess {
  const child = spawn(process.execPath, ['-r', REGISTER, join(__dirname, 'children', script), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let pending = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    lines.forEach(onLine);
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => process.stderr.write(chunk));
  return child;
}

export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Runs a TypeScript entry point (an app's `main.ts`) to its exit with exactly `env` plus PATH; stdout and stderr together. */
export function runTypeScriptMain(main: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', REGISTER, main], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}
