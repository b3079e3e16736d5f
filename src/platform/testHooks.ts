/**
 * Test-only checkpoints (docs/decisions.md). Production code never imports this module: src/layers
 * provides it as `Checkpoints` only when a crash-safety test sets one of its variables.
 * - `PCLI_TEST_CRASH_AFTER=<step>` SIGKILLs the process right after that step, so a test can show
 *   recovery from every point of a protocol (an old state or the new one, never both).
 * - `PCLI_TEST_PAUSE_AT=<point>:<fifo>` blocks at a named point until the test opens and closes the
 *   FIFO, so two processes can be lined up on a race (no sleeps, no timing).
 */
import { Effect, Layer } from "effect"
import { closeSync, openSync, readSync } from "node:fs"
import { Checkpoints, type CheckpointsService } from "./Checkpoints"

export interface TestHookSettings {
  /** The step to SIGKILL after (`PCLI_TEST_CRASH_AFTER`). */
  readonly crashAfter: string | undefined
  /** `<point>:<fifo>` to block at (`PCLI_TEST_PAUSE_AT`). */
  readonly pauseAt: string | undefined
}

const set = (value: string | undefined): value is string => value !== undefined && value !== ""

/** True when a test asked for a hook: then the app wires `layer`, else production's checkpoints stand. */
export const requested = (settings: TestHookSettings): boolean => set(settings.crashAfter) || set(settings.pauseAt)

/** Reads the FIFO until its writer closes it. */
const waitOn = (fifo: string) =>
  Effect.sync(() => {
    const fd = openSync(fifo, "r")
    const buffer = Buffer.alloc(64)
    while (readSync(fd, buffer, 0, buffer.length, null) > 0) continue
    closeSync(fd)
  })

export const testCheckpoints = (settings: TestHookSettings): CheckpointsService => ({
  after: (step) => (set(settings.crashAfter) && step === settings.crashAfter ? Effect.sync(() => void process.kill(process.pid, "SIGKILL")) : Effect.void),
  pauseAt: (point) => {
    const value = settings.pauseAt
    return set(value) && value.startsWith(`${point}:`) ? waitOn(value.slice(point.length + 1)) : Effect.void
  }
})

export const layer = (settings: TestHookSettings) => Layer.succeed(Checkpoints, testCheckpoints(settings))
