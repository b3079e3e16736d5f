import { Effect, Option, Ref } from "effect"
import type { StatementFailed } from "./Warehouse"

/** DuckDB's messages for an allocation or a pin that did not fit under `memory_limit`. */
const outOfMemoryPattern = /Out of Memory Error|failed to pin block|could not allocate block/i

export const isOutOfMemoryMessage = (message: string): boolean => outOfMemoryPattern.test(message)

/**
 * The caps an embedded warehouse file goes through when no `memory_limit` is configured, lowest
 * first; `undefined` is DuckDB's own default (80% of RAM). It starts small because DuckDB keeps
 * every table it wrote cached up to its cap, so a run of many small models would hold the whole
 * cap; not lower than 32MB, where four lanes of tiny models already failed in odd ways. A model that
 * needs more (a CSV scan pins 30.5 MiB) raises it (decisions.md "A memory cap that follows the run").
 */
export const memoryLimitSteps: ReadonlyArray<string | undefined> = ["32MB", "256MB", "1GB", undefined]

/** How a step reads in a retry line. */
export const describeMemoryLimit = (limit: string | undefined): string => limit ?? "DuckDB's default (80% of RAM)"

/** A memory cap that rises, one step at a time, as builds run out of memory under it; it never falls back. */
export interface MemoryCap {
  /** The step in force: hand it back to `raiseFrom` when a build that started under it ran out of memory. */
  readonly step: Effect.Effect<number>
  /**
   * Raises the cap past `step`, once however many builds failed under that step; the cap then in
   * force (`None` when it was already at the top or could not be raised) for the retry line.
   */
  readonly raiseFrom: (step: number) => Effect.Effect<Option.Option<string | undefined>>
}

/** `apply` runs a `SET`/`RESET` of DuckDB's global `memory_limit`; the cap starts at `memoryLimitSteps[0]`. */
export const makeMemoryCap = (apply: (sql: string) => Effect.Effect<void, StatementFailed>): Effect.Effect<MemoryCap> =>
  Effect.gen(function* () {
    const current = yield* Ref.make(0)
    const raising = yield* Effect.makeSemaphore(1)
    const top = memoryLimitSteps.length - 1
    const raiseFrom = (step: number) =>
      raising.withPermits(1)(
        Effect.gen(function* () {
          const now = yield* Ref.get(current)
          // Another build already raised it past the step this one failed under: retry at the new cap.
          if (now > step) return Option.some(memoryLimitSteps[now])
          if (now >= top) return Option.none()
          const next = memoryLimitSteps[now + 1]
          const raised = yield* apply(next === undefined ? "RESET GLOBAL memory_limit" : `SET GLOBAL memory_limit = '${next}'`).pipe(Effect.either)
          if (raised._tag === "Left") return Option.none()
          yield* Ref.set(current, now + 1)
          return Option.some(next)
        })
      )
    return { step: Ref.get(current), raiseFrom }
  })
