/**
 * Test-only hooks (documented in docs/decisions.md), read through the Environment service:
 * - `PCLI_TEST_CRASH_AFTER=<step>` SIGKILLs the process right after that commit step, so a test
 *   can show recovery from every point of the protocol.
 * - `PCLI_TEST_PAUSE_AT=<point>:<fifo>` blocks at a named point until the test opens and closes the
 *   FIFO, so two processes can be lined up on a race (no sleeps, no timing).
 */
import { Effect } from "effect"
import { closeSync, openSync, readSync } from "node:fs"
import { Environment } from "../Environment/Environment"
import type { CommitHooks } from "./stagingJournal"

export const hooksFromEnvironment: Effect.Effect<CommitHooks, never, Environment> = Effect.map(Environment, (env) => {
  const crashAfter = env["PCLI_TEST_CRASH_AFTER"]
  return crashAfter === undefined || crashAfter === ""
    ? { after: () => Effect.void }
    : { after: (step: string) => (step === crashAfter ? Effect.sync(() => void process.kill(process.pid, "SIGKILL")) : Effect.void) }
})

/** Blocks on the FIFO named for `point` (reads until the writer closes it); a no-op otherwise. */
export const pauseAt = (point: string): Effect.Effect<void, never, Environment> =>
  Effect.flatMap(Environment, (env) => {
    const value = env["PCLI_TEST_PAUSE_AT"]
    if (value === undefined || !value.startsWith(`${point}:`)) return Effect.void
    const fifo = value.slice(point.length + 1)
    return Effect.sync(() => {
      const fd = openSync(fifo, "r")
      const buffer = Buffer.alloc(64)
      while (readSync(fd, buffer, 0, buffer.length, null) > 0) continue
      closeSync(fd)
    })
  })
