import { threadId } from 'node:worker_threads';
import { DomainError } from '../../errors';
import { untrustedTask } from '../untrusted-work';

/** Tasks for the pool's own specs: each shows one way a task ends. */
export function echoTask(input: { value: unknown }): { value: unknown; threadId: number } {
  return { value: input.value, threadId };
}

export function spinTask(input: { ms: number | null }): string {
  const until = input.ms === null ? Infinity : Date.now() + input.ms;
  while (Date.now() < until) {
    // computes without ever yielding, as a hostile input makes a parser do
  }
  return 'done';
}

export function allocateTask(): number {
  const kept: number[][] = [];
  for (;;) kept.push(new Array(1_000_000).fill(kept.length));
}

export function refuseTask(input: { message: string }): never {
  throw new DomainError(413, input.message, { limit: 1 });
}

export function failTask(): never {
  throw Object.assign(new Error('upstream refused'), { name: 'ProcessingFailure', code: 'FETCH_FAILED' });
}

export const ECHO = untrustedTask<{ value: unknown }, { value: unknown; threadId: number }>(__filename, 'echoTask', 'echoing');
export const SPIN = untrustedTask<{ ms: number | null }, string>(__filename, 'spinTask', 'spinning');
export const ALLOCATE = untrustedTask<Record<string, never>, number>(__filename, 'allocateTask', 'allocating');
export const REFUSE = untrustedTask<{ message: string }, never>(__filename, 'refuseTask', 'refusing');
export const FAIL = untrustedTask<Record<string, never>, never>(__filename, 'failTask', 'failing');
export const MISSING = untrustedTask<Record<string, never>, never>(__filename, 'noSuchTask', 'nothing');
