import type { ExpectedRevision } from './event-store.port';

/** The stream was not in the state the append expected: someone else wrote first. */
export class WrongExpectedRevisionError extends Error {
  override readonly name = 'WrongExpectedRevisionError';
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    /** Current revision of the stream, or 'no_stream' when it does not exist. */
    readonly actual: number | 'no_stream',
  ) {
    super(`stream '${stream}' expected to be at ${String(expected)} but is at ${String(actual)}`);
  }
}

/** Bad input to the store itself (invalid stream name, empty batch, oversized event, bad page size). */
export class EventStoreInputError extends Error {
  override readonly name = 'EventStoreInputError';
}

/** The store cannot be reached or was closed. */
export class EventStoreUnavailableError extends Error {
  override readonly name = 'EventStoreUnavailableError';
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

/** The embedded data directory is already opened by another live process. */
export class DataDirectoryLockedError extends Error {
  override readonly name = 'DataDirectoryLockedError';
}

/**
 * The embedded event log failed its check at open (its file cut short, its meta pages unreadable,
 * its last event undecodable). The log is the source of truth: nothing is rebuilt from it until it
 * is salvaged, so the service refuses to start.
 */
export class DamagedEventLogError extends Error {
  override readonly name = 'DamagedEventLogError';
  constructor(
    readonly directory: string,
    readonly problem: string,
  ) {
    super(
      `the event log in ${directory} is damaged: ${problem}. ` +
        `Nothing was changed. To salvage it, run \`npm run cli -- salvage-log <new-directory>\` with DATA_DIR set to this data directory: ` +
        `it copies every event up to the last intact one into a fresh log and says what to do next (\`npm run cli -- verify\` checks the whole directory).`,
    );
  }
}
