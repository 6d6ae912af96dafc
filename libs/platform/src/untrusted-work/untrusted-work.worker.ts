import { parentPort } from 'node:worker_threads';
import { DomainError } from '../errors';
import type { TaskFailure } from './untrusted-work';
import type { TaskMessage, TaskReply } from './worker-pool';

/**
 * A thread of the untrusted-work pool (WorkerPool): runs one task at a time, the named export of
 * the named module, and answers its result or its failure. The pool ends the thread when a task
 * runs over its budget.
 */
const port = parentPort!;

port.on('message', (message: TaskMessage) => {
  void run(message).then((reply) => port.postMessage(reply));
});

async function run({ id, module, exportName, input }: TaskMessage): Promise<TaskReply> {
  try {
    // The module is named by the service's own code (never by a caller), and loaded on first use.
    const exported = (require(module) as Record<string, unknown>)[exportName];
    if (typeof exported !== 'function') throw new Error(`${module} exports no task named ${exportName}`);
    return { id, result: await (exported as (input: unknown) => unknown)(input) };
  } catch (error) {
    return { id, failure: failureOf(error) };
  }
}

function failureOf(error: unknown): TaskFailure {
  if (error instanceof DomainError)
    return {
      name: 'DomainError',
      message: error.message,
      status: error.status,
      ...(error.details ? { details: { ...error.details } } : {}),
    };
  if (error instanceof Error) {
    const { code } = error as { code?: unknown };
    return { name: error.name, message: error.message, ...(typeof code === 'string' ? { code } : {}) };
  }
  return { name: 'Error', message: String(error) };
}
