import { Counter } from 'prom-client';
import { log } from '#platform/logging';

/**
 * Rejections no code handled, counted for the whole process: every `Metrics` registry exports it
 * (`unhandled_rejections_total`), since the handler is the process's, not one service's.
 */
export const unhandledRejections = new Counter({
  name: 'unhandled_rejections_total',
  help: 'Promise rejections that nothing handled: logged with their stack, the process carries on',
  registers: [],
});

let installed = false;

/**
 * Installs the process's `unhandledRejection` handler: the error is logged with its stack and
 * counted, and the process carries on. Node's default ends the process, which turned one failed
 * background write (a full disk) into an outage; what failed is already answered to whoever waited
 * for it, and alerting on the counter finds the rejection that was missed.
 */
export function handleUnhandledRejections(): void {
  if (installed) return;
  installed = true;
  process.on('unhandledRejection', (reason) => {
    unhandledRejections.inc();
    log.error({ err: reason }, 'unhandled promise rejection; the process carries on');
  });
}
