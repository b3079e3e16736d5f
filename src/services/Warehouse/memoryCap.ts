import { Effect, Option, Ref } from "effect"
import { type StatementFailed, Warehouse } from "./Warehouse"

/** DuckDB's messages for an allocation or a pin that did not fit under `memory_limit`. */
const outOfMemoryPattern = /Out of Memory Error|failed to pin block|could not allocate block/i

export const isOutOfMemoryMessage = (message: string): boolean => outOfMemoryPattern.test(message)

/** DuckDB's file readers, called as functions or by a quoted path in FROM (`FROM 'orders.csv'`). */
const fileReadPattern = /\bread_(?:csv|csv_auto|json|json_auto|json_objects|ndjson|ndjson_auto|parquet|text|blob|xlsx)\s*\(|\bsniff_csv\s*\(|\b(?:FROM|JOIN)\s+'[^']*'/i

/**
 * True when the SQL reads files. DuckDB's CSV reader pins a 30.5 MiB buffer per scan, more than the
 * starting cap; such a model starts at `fileReadingStep`, since a file it read once may not be
 * there to read again (a pipe), so running out of memory and retrying would not do.
 */
export const readsFiles = (sql: string): boolean => fileReadPattern.test(sql)

/** The step a model that reads files is built at, at least. */
export const fileReadingStep = 1

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
  /** Raises the cap to `step` unless it is already there or past it; the cap then in force, `None` when it could not be raised. */
  readonly raiseTo: (step: number) => Effect.Effect<Option.Option<string | undefined>>
}

/** `apply` runs a `SET`/`RESET` of DuckDB's global `memory_limit`; the cap starts at `memoryLimitSteps[0]`. */
export const makeMemoryCap = (apply: (sql: string) => Effect.Effect<void, StatementFailed>): Effect.Effect<MemoryCap> =>
  Effect.gen(function* () {
    const current = yield* Ref.make(0)
    const raising = yield* Effect.makeSemaphore(1)
    const top = memoryLimitSteps.length - 1
    const raiseTo = (step: number) =>
      raising.withPermits(1)(
        Effect.gen(function* () {
          const now = yield* Ref.get(current)
          // Another build already raised it this far: build at the cap now in force.
          if (now >= step) return Option.some(memoryLimitSteps[now])
          if (step > top) return Option.none()
          const next = memoryLimitSteps[step]
          const raised = yield* apply(next === undefined ? "RESET GLOBAL memory_limit" : `SET GLOBAL memory_limit = '${next}'`).pipe(Effect.either)
          if (raised._tag === "Left") return Option.none()
          yield* Ref.set(current, step)
          return Option.some(next)
        })
      )
    return { step: Ref.get(current), raiseFrom: (step) => raiseTo(step + 1), raiseTo }
  })

/**
 * Runs a build (a model's, a restore's re-execution) under the embedded warehouse's rising cap: a
 * build that reads files first raises it to `fileReadingStep`; one that ran out of memory raises it
 * a step and runs again, as long as the cap can rise. A model's build is one transaction that
 * rolled back, so running it again is safe. Each retry is logged at WARN like the runner's
 * transient retries (`retrying with memory_limit = 256MB: model m: <reason>`). A fixed cap, or a
 * warehouse without one, leaves the build as it is.
 */
export const withMemoryToGrow = <A, E extends { readonly message: string }, R>(
  build: Effect.Effect<A, E, R>,
  subject: string,
  options: { readonly readsFiles: boolean }
): Effect.Effect<A, E, R | Warehouse> =>
  Effect.flatMap(Warehouse, (wh) => {
    const cap = wh.memory
    if (cap === undefined) return build
    const attempt: Effect.Effect<A, E, R> = Effect.flatMap(cap.step, (step) =>
      Effect.catchIf(
        build,
        (e) => isOutOfMemoryMessage(e.message),
        (e) =>
          Effect.flatMap(cap.raiseFrom(step), (raised) =>
            Option.match(raised, {
              onNone: () => Effect.fail(e),
              onSome: (limit) =>
                Effect.logWarning(`retrying with memory_limit = ${describeMemoryLimit(limit)}: ${subject}: ${e.message.split("\n")[0]}`).pipe(
                  Effect.annotateLogs({ "pcli.retry": true, subject, memory_limit: describeMemoryLimit(limit) }),
                  Effect.zipRight(attempt)
                )
            })
          )
      )
    )
    return options.readsFiles ? Effect.zipRight(cap.raiseTo(fileReadingStep), attempt) : attempt
  })
