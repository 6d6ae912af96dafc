/** Where a reactor keeps its progress: one document of the checkpoints collection, read by read-your-writes and `/health`. */
export const reactorCheckpointId = (name: string) => `reactor-${name}`;

export interface ReactorCheckpointDoc {
  _id: string;
  position: string | null;
  /** Highest log position appended by the reactions up to `position`: what read-your-writes waits for next. */
  appended: string | null;
  /** The error of a reaction being retried, else null: read-your-writes does not wait for a failing reactor. */
  failing: string | null;
  updatedAt: string;
  [key: string]: unknown;
}
