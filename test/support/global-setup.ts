/**
 * Runs once before all suites: finds out whether KurrentDB and MongoDB suites can run, and says why
 * not when they cannot. The verdict travels to the suites through environment variables, which
 * Jest's workers inherit.
 */
export default async function globalSetup(): Promise<void> {
  let runtime = false;
  let reason = '';
  if (process.env.TESTCONTAINERS_DISABLED) {
    reason = 'TESTCONTAINERS_DISABLED is set';
  } else {
    try {
      const { getContainerRuntimeClient } = await import('testcontainers');
      await withTimeout(getContainerRuntimeClient(), 5000);
      runtime = true;
    } catch (error) {
      reason = `no container runtime found (${firstLine(error)})`;
    }
  }
  process.env.TEST_CONTAINER_RUNTIME = runtime ? '1' : '';
  process.env.TEST_CONTAINER_RUNTIME_REASON = reason;
  for (const [service, variable] of [
    ['KurrentDB', 'EVENTSTORE_URL'],
    ['MongoDB', 'MONGODB_URL'],
  ]) {
    if (!runtime && !process.env[variable]) {
      process.stdout.write(`\n[skip] ${service} suites are skipped: ${reason} and ${variable} is not set.\n`);
    }
  }
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error)
    .split('\n')[0]
    .slice(0, 200);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms).unref()),
  ]);
}
