/**
 * One client per connection string per process, shared by every store opened on it and reference
 * counted: the KurrentDB client's `dispose()` cancels its calls but leaves its gRPC channel open, so
 * a client per store would leave one channel behind for every store ever opened. With one shared
 * client there is one channel, and it is closed when the last store using it closes.
 */
export interface ClientLease<TClient> {
  readonly client: TClient;
  /** Records that the client opened gRPC calls, so that its channel has to be closed on release. */
  usedGrpc(): void;
  /** Gives the client back; the last release disposes it. Releasing twice is harmless. */
  release(): Promise<void>;
}

interface Entry<TClient> {
  client: TClient;
  users: number;
  usedGrpc: boolean;
}

export class SharedClients<TClient> {
  private readonly entries = new Map<string, Entry<TClient>>();

  constructor(
    private readonly create: (key: string) => TClient,
    private readonly dispose: (client: TClient, usedGrpc: boolean) => Promise<void>,
  ) {}

  /** The client for `key`, created on first use; `create` errors are thrown and nothing is kept. */
  acquire(key: string): ClientLease<TClient> {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { client: this.create(key), users: 0, usedGrpc: false };
      this.entries.set(key, entry);
    }
    entry.users += 1;
    const held = entry;
    let released = false;
    return {
      client: held.client,
      usedGrpc: () => {
        held.usedGrpc = true;
      },
      release: async () => {
        if (released) return;
        released = true;
        held.users -= 1;
        if (held.users > 0) return;
        // Forgotten before disposing, so that a store opened meanwhile gets a fresh client.
        if (this.entries.get(key) === held) this.entries.delete(key);
        await this.dispose(held.client, held.usedGrpc);
      },
    };
  }

  /** How many open stores use the client for `key` (0 when there is none). */
  users(key: string): number {
    return this.entries.get(key)?.users ?? 0;
  }

  /** How many clients are alive. */
  get size(): number {
    return this.entries.size;
  }
}
