import type { ReadStore } from '#read-store/read-store.port';
import { CHECKPOINTS } from '#read-store/projections/projection-runner';

/** The one document of the checkpoints collection holding every reactor's progress, read by read-your-writes and `/health`. */
export const REACTORS_CHECKPOINT = 'reactors';

/** The document one reactor kept alone (older builds): read when the shared one does not name the reactor. */
export const reactorCheckpointId = (name: string) => `reactor-${name}`;

export interface ReactorProgress {
  position: string | null;
  /** Highest log position appended by the reactions up to `position`: what read-your-writes waits for next. */
  appended: string | null;
  /** The error of a reaction being retried, else null: read-your-writes does not wait for a failing reactor. */
  failing: string | null;
}

export interface ReactorsCheckpointDoc {
  _id: string;
  reactors: Record<string, ReactorProgress>;
  updatedAt: string;
  [key: string]: unknown;
}

export interface ReactorCheckpointDoc extends ReactorProgress {
  _id: string;
  updatedAt: string;
  [key: string]: unknown;
}

/** Each reactor's stored progress (null: none), from the shared document, else from its own older one. */
export async function readReactorProgress(reads: ReadStore, names: readonly string[]): Promise<Map<string, ReactorProgress | null>> {
  const checkpoints = reads.collection(CHECKPOINTS);
  const shared = (await checkpoints.get(REACTORS_CHECKPOINT)) as ReactorsCheckpointDoc | null;
  const found = new Map<string, ReactorProgress | null>();
  await Promise.all(
    names.map(async (name) => {
      const progress = shared?.reactors?.[name] ?? ((await checkpoints.get(reactorCheckpointId(name))) as ReactorCheckpointDoc | null);
      found.set(
        name,
        progress ? { position: progress.position ?? null, appended: progress.appended ?? null, failing: progress.failing ?? null } : null,
      );
    }),
  );
  return found;
}

/** Default longest time a reactor's progress waits before it is saved. */
export const DEFAULT_CHECKPOINT_INTERVAL_MS = 1000;

/**
 * Saves the reactors' checkpoints in batches (docs/read-side.md, Reactors): every reactor of the
 * process records its progress here on each event, and all of it is written as one document at
 * most once per `intervalMs` (and at once when asked: a reaction starting to fail or recovering, a
 * reactor catching up or stopping). Writes never overlap; progress recorded during one is written
 * by the next. Durability is unchanged: after a crash a reactor replays from the last saved
 * position, and its reactions are idempotent.
 */
export class ReactorCheckpoints {
  private readonly progress = new Map<string, ReactorProgress>();
  private seeded: Promise<void> | null = null;
  private dirty = false;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;

  constructor(
    private readonly reads: ReadStore,
    private readonly intervalMs = DEFAULT_CHECKPOINT_INTERVAL_MS,
    private readonly logger?: { warn(message: string, context?: object): void },
  ) {}

  /** A reactor's stored progress. The shared document's other entries are kept, so a reactor not started yet keeps its own. */
  async load(name: string): Promise<ReactorProgress | null> {
    this.seeded ??= (async () => {
      const shared = (await this.reads.collection(CHECKPOINTS).get(REACTORS_CHECKPOINT)) as ReactorsCheckpointDoc | null;
      for (const [reactor, progress] of Object.entries(shared?.reactors ?? {}))
        if (!this.progress.has(reactor)) this.progress.set(reactor, progress);
    })().catch((error: unknown) => {
      this.seeded = null;
      throw error;
    });
    await this.seeded;
    const stored = (await readReactorProgress(this.reads, [name])).get(name) ?? null;
    if (stored && !this.progress.has(name)) this.progress.set(name, stored);
    return stored;
  }

  /** Records a reactor's progress; written within `intervalMs`, or at once when `now`. */
  record(name: string, progress: ReactorProgress, now = false): Promise<void> {
    this.progress.set(name, progress);
    this.dirty = true;
    if (now) return this.flush();
    this.schedule();
    return Promise.resolve();
  }

  /** Writes what was recorded and not yet written (waiting for a write under way first). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.writing) await this.writing.catch(() => undefined);
    if (!this.dirty) return;
    this.dirty = false;
    const doc: ReactorsCheckpointDoc = {
      _id: REACTORS_CHECKPOINT,
      reactors: Object.fromEntries(this.progress),
      updatedAt: new Date().toISOString(),
    };
    this.writing = this.reads.collection<ReactorsCheckpointDoc>(CHECKPOINTS).put(doc);
    try {
      await this.writing;
    } catch (error) {
      this.dirty = true;
      this.schedule();
      throw error;
    } finally {
      this.writing = null;
    }
    if (this.dirty) this.schedule();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      // Retried at the next interval: the progress stays recorded.
      this.flush().catch((error: unknown) =>
        this.logger?.warn('could not save the reactors\u2019 checkpoints', { error: String((error as Error)?.message ?? error) }),
      );
    }, this.intervalMs);
    this.timer.unref?.();
  }
}
