/**
 * The in-process projections, for work that must not run on read models still being built: a
 * start replays the log from its checkpoint (from zero after an upgrade), and until it has caught
 * up the read models show the past, not the present. Null in a process that does not project (the
 * distributed API), which cannot know.
 */
export const PROJECTION_RUNNER = Symbol('PROJECTION_RUNNER');

export interface ProjectionsReady {
  /** Resolves once the projections have applied everything the log held when they started. */
  whenCaughtUp(): Promise<void>;
}
