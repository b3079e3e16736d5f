import { Context, Effect } from "effect"

/**
 * Named points of the crash-safe protocols (a commit step done, a read observed before a race).
 * Production passes them by (the default); the crash-safety tests put their hooks here
 * (platform/testHooks.ts, wired by src/layers only when a test asks) to stop or hold the process.
 */
export interface CheckpointsService {
  /** `step` has just been written (inside its transaction, or on disk). */
  readonly after: (step: string) => Effect.Effect<void>
  /** Another process may race this one from here. */
  readonly pauseAt: (point: string) => Effect.Effect<void>
}

/** What production does at every checkpoint: nothing. */
export const passBy: CheckpointsService = { after: () => Effect.void, pauseAt: () => Effect.void }

export class Checkpoints extends Context.Reference<Checkpoints>()("pcli/Checkpoints", { defaultValue: () => passBy }) {}
