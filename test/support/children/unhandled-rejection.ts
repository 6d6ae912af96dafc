/** Test child: installs the process's unhandled-rejection handler, leaves a rejection unhandled, then prints the counter and that it is still up. */
import { Registry } from 'prom-client';
import { handleUnhandledRejections, unhandledRejections } from '#runtime/unhandled-rejections';

handleUnhandledRejections();
void Promise.reject(new Error('nobody listens to this one'));
setTimeout(() => {
  const registry = new Registry();
  registry.registerMetric(unhandledRejections);
  void registry.metrics().then((text) => {
    process.stdout.write(`${text.split('\n').find((line) => line.startsWith('unhandled_rejections_total'))}\n`);
    process.stdout.write('still up\n');
  });
}, 50);
