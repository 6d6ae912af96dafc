import { spawn } from 'node:child_process';
import { join } from 'node:path';

const REGISTER = join(__dirname, '..', '..', '..', 'scripts', 'register-ts.js');
const MAIN = join(__dirname, 'main.ts');

function runMain(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', REGISTER, MAIN], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('the integrations worker process', () => {
  it('refuses to start in embedded mode, saying the API delivers integration events itself', async () => {
    const { code, output } = await runMain({});
    expect(code).toBe(1);
    expect(output).toMatch(/integrations worker runs in distributed mode only.*API process \(npm start\) delivers integration events itself/);
  }, 60_000);
});
