import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { checksumProblem, type DeferredChecksum } from './read-model-integrity';

/**
 * The read-model file's checksum (`read-model-integrity.ts`), computed on a worker thread while the
 * service starts and serves: a 1.5 GB file is a second of reading and CRC-32 that the start no
 * longer waits for. The worker reads the file in chunks with plain reads (never mapping it) and
 * answers twice: in a shared buffer, so that a caller that must know now (`waitSync`: a synchronous
 * write to the file) can block on it, and as a message.
 *
 * An inline script (`eval`): nothing to compile or resolve, the same under ts-node, jest and `dist/`.
 */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { crc32 } = require('node:zlib');
const { file, state, port, chunk } = workerData;
const flags = new Int32Array(state);
let answer;
try {
  const fd = fs.openSync(file, 'r');
  const buffer = Buffer.allocUnsafe(chunk);
  let sum = 0;
  try {
    for (let position = 0; ; ) {
      const read = fs.readSync(fd, buffer, 0, chunk, position);
      if (read === 0) break;
      sum = crc32(buffer.subarray(0, read), sum);
      position += read;
    }
  } finally {
    fs.closeSync(fd);
  }
  answer = { sum };
} catch (error) {
  answer = { error: String((error && error.message) || error) };
}
port.postMessage(answer);
Atomics.store(flags, 0, 1);
Atomics.notify(flags, 0);
`;

const CHUNK = 8 * 1024 * 1024;

/** How a background check ended: `problem` undefined when the file matches its seal; `abandoned` when stopped first. */
export type ChecksumOutcome = { kind: 'checked'; problem: string | undefined } | { kind: 'abandoned' };

export class BackgroundChecksum {
  /** Settles once the check has ended (never rejects: a read that fails is a problem of the file). */
  readonly outcome: Promise<ChecksumOutcome>;

  private settled: ChecksumOutcome | undefined;
  private resolve!: (outcome: ChecksumOutcome) => void;
  private readonly flags: Int32Array;
  private readonly port: MessagePort;
  private readonly worker: Worker;

  private constructor(private readonly expected: DeferredChecksum) {
    this.outcome = new Promise((resolve) => (this.resolve = resolve));
    const state = new SharedArrayBuffer(4);
    this.flags = new Int32Array(state);
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file: expected.file, state, port: port2, chunk: CHUNK },
      transferList: [port2],
    });
    port1.on('message', (answer: { sum?: number; error?: string }) => this.settle(this.outcomeOf(answer)));
    this.worker.on('error', (error) =>
      this.settle({ kind: 'checked', problem: `${expected.file} could not be read to check its checksum: ${error.message}` }),
    );
    // Neither keeps a process alive that has nothing else to do (a CLI command done before the check).
    this.worker.unref();
    port1.unref();
  }

  static start(expected: DeferredChecksum): BackgroundChecksum {
    return new BackgroundChecksum(expected);
  }

  /** The outcome, once the check has ended; undefined while it runs. */
  get result(): ChecksumOutcome | undefined {
    return this.settled;
  }

  /** Blocks this thread until the worker has answered, and answers its outcome. */
  waitSync(): ChecksumOutcome {
    if (this.settled) return this.settled;
    Atomics.wait(this.flags, 0, 0);
    const received = receiveMessageOnPort(this.port) as { message: { sum?: number; error?: string } } | undefined;
    this.settle(
      received
        ? this.outcomeOf(received.message)
        : { kind: 'checked', problem: `${this.expected.file}: the checksum worker ended without an answer` },
    );
    return this.settled!;
  }

  /** Stops the check (the worker is terminated): its outcome is `abandoned` unless it had ended. */
  abandon(): void {
    if (this.settled) return;
    this.settle({ kind: 'abandoned' });
    void this.worker.terminate();
  }

  private outcomeOf(answer: { sum?: number; error?: string }): ChecksumOutcome {
    if (answer.error !== undefined)
      return { kind: 'checked', problem: `${this.expected.file} could not be read to check its checksum: ${answer.error}` };
    return { kind: 'checked', problem: checksumProblem(this.expected.file, answer.sum!, this.expected.crc32) };
  }

  private settle(outcome: ChecksumOutcome): void {
    if (this.settled) return;
    this.settled = outcome;
    this.port.close();
    this.resolve(outcome);
  }
}
