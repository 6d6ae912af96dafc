import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { loadConfig } from '../../../libs/platform/src/config';
import { distributedOnly } from './main';

const REGISTER = join(__dirname, '..', '..', '..', 'test', 'support', 'register-ts.js');
const MAIN = join(__dirname, 'main.ts');

/** Runs the projector's entry point as its own process with exactly `env` (plus PATH). */
function runMain(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', REGISTER, MAIN], {
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

describe('projector main', () => {
  it('refuses embedded mode: there the API process runs the projections', () => {
    expect(() => distributedOnly(loadConfig({}))).toThrow(/distributed mode only: set EVENTSTORE_URL and MONGODB_URL.*API process/);
  });

  it('refuses a half-distributed configuration, naming what is missing', () => {
    expect(() => distributedOnly(loadConfig({ EVENTSTORE_URL: 'kurrentdb://kurrentdb:2113?tls=false' }))).toThrow(/MONGODB_URL is not set/);
    expect(() => distributedOnly(loadConfig({ MONGODB_URL: 'mongodb://mongodb:27017/docs?replicaSet=rs0' }))).toThrow(/EVENTSTORE_URL is not set/);
  });

  it('accepts distributed mode', () => {
    expect(() =>
      distributedOnly(loadConfig({ EVENTSTORE_URL: 'kurrentdb://kurrentdb:2113?tls=false', MONGODB_URL: 'mongodb://mongodb:27017/docs?replicaSet=rs0' })),
    ).not.toThrow();
  });

  it('exits 1 with a clear message when started without EVENTSTORE_URL and MONGODB_URL', async () => {
    const { code, output } = await runMain({ LOG_LEVEL: 'info' });
    expect(code).toBe(1);
    const fatal = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: string; msg: string })
      .find((line) => line.level === 'fatal');
    expect(fatal?.msg).toMatch(/could not start: the projector runs in distributed mode only: set EVENTSTORE_URL and MONGODB_URL/);
    expect(fatal?.msg).toMatch(/the API process \(npm start\) runs the projections itself/);
  });
});
