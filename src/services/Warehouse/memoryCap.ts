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

/** The step a model that reads files is built at, at least, while it runs: four lanes of CSV scans side by side. */
export const fileReadingStep = 2

/**
 * The caps an embedded warehouse file goes through when no `memory_limit` is configured, lowest
 * first; `undefined` is DuckDB's own default (80% of RAM). It starts small because DuckDB keeps
 * every table it wrote cached up to its cap, so a run of many small models would hold the whole
 * cap; not lower than 32MB, where four lanes of tiny models already failed in odd ways. 64MB is
 * the first step up: a join or a window that did not fit at 32MB fits there, and the cap a run
 * keeps is what its peak RSS is made of (decisions.md "A memory cap that follows the run").
 */
export const memoryLimitSteps: ReadonlyArray<string | undefined> = ["32MB", "64MB", "256MB", "1GB", undefined]

/** How a step reads in a retry line. */
export const describeMemoryLimit = (limit: string | undefined): string => limit ?? "DuckDB's default (80% of RAM)"

/**
 * A memory cap made of a floor that rises, one step at a time, as builds run out of memory under
 * it (it never falls back), and of holds: a build that needs more while it runs (one reading files)
 * holds a higher step, and the cap falls back to the floor when no build holds it.
 */
export interface MemoryCap {
  /** The floor: hand it back to `raiseFrom` when a build that started under it ran out of memory. */
  readonly step: Effect.Effect<number>
  /**
   * Raises the floor past `step`, once however many builds failed under that step; the cap then in
   * force (`None` when it was already at the top or could not be raised) for the retry line.
   */
  readonly raiseFrom: (step: number) => Effect.Effect<Option.Option<string | undefined>>
  /** Raises the floor to `step` unless it is already there or past it; the cap then in force, `None` when it could not be raised. */
  readonly raiseTo: (step: number) => Effect.Effect<Option.Option<string | undefined>>
  /** Counts a build begun under the cap (not its retries): what `outOfMemoryAt` weighs its Out of Memory errors against. */
  readonly began: Effect.Effect<void>
  /**
   * The step to build again at after running out of memory at `step`, `None` at the top. An Out of
   * Memory is taken as a one-off (lanes that filled the cap together; a different model each run):
   * the retry holds the next step and the floor stays. The floor rises from the second one at a
   * step on, once they reach one in `buildsPerFloorRaise` builds begun: then the models need more.
   */
  readonly outOfMemoryAt: (step: number) => Effect.Effect<Option.Option<number>>
  /** Runs `effect` with the cap at `step` at least; after it, the cap falls to what the floor and the other holds need. */
  readonly holding: <A, E, R>(step: number, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/**
 * Builds begun per Out of Memory at a step below which the errors stay one-offs. A run of 2,000
 * realistic models meets 2–18 of them at 32MB, a different model each time; raising the floor for
 * them kept ~40 MB more for the rest of the run (performance.md "Run RSS at 2,000 models").
 */
export const buildsPerFloorRaise = 100

/** `apply` runs a `SET`/`RESET` of DuckDB's global `memory_limit`; the cap starts at `memoryLimitSteps[0]`. */
export const makeMemoryCap = (apply: (sql: string) => Effect.Effect<void, StatementFailed>): Effect.Effect<MemoryCap> =>
  Effect.gen(function* () {
    const floor = yield* Ref.make(0)
    const holds = yield* Ref.make<ReadonlyArray<number>>([])
    const inForce = yield* Ref.make(0)
    const changing = yield* Effect.makeSemaphore(1)
    const top = memoryLimitSteps.length - 1
    const set = (step: number) => {
      const limit = memoryLimitSteps[step]
      return apply(limit === undefined ? "RESET GLOBAL memory_limit" : `SET GLOBAL memory_limit = '${limit}'`)
    }
    /** Sets the cap to what the floor and the holds need; true when it is there (DuckDB may refuse to lower it while blocks are pinned). */
    const settle = Effect.gen(function* () {
      const wanted = Math.max(yield* Ref.get(floor), ...(yield* Ref.get(holds)))
      if (wanted === (yield* Ref.get(inForce))) return true
      const changed = yield* Effect.either(set(wanted))
      if (changed._tag === "Left") return false
      yield* Ref.set(inForce, wanted)
      return true
    })
    const raiseTo = (step: number) =>
      changing.withPermits(1)(
        Effect.gen(function* () {
          const before = yield* Ref.get(floor)
          // Another build already raised it this far: build at the cap now in force.
          if (before >= step) return Option.some(memoryLimitSteps[yield* Ref.get(inForce)])
          if (step > top) return Option.none()
          yield* Ref.set(floor, step)
          if (yield* settle) return Option.some(memoryLimitSteps[yield* Ref.get(inForce)])
          yield* Ref.set(floor, before)
          return Option.none()
        })
      )
    const begun = yield* Ref.make(0)
    /** Out of Memory errors met at each step. */
    const struck = yield* Ref.make<ReadonlyMap<number, number>>(new Map())
    const outOfMemoryAt = (step: number): Effect.Effect<Option.Option<number>> =>
      Effect.flatMap(
        changing.withPermits(1)(
          Effect.gen(function* () {
            const now = yield* Ref.get(floor)
            if (now > step) return Option.some(Option.some(now))
            if (step >= top) return Option.some(Option.none<number>())
            const strikes = ((yield* Ref.get(struck)).get(step) ?? 0) + 1
            yield* Ref.update(struck, (all) => new Map(all).set(step, strikes))
            if (strikes >= 2 && strikes * buildsPerFloorRaise >= (yield* Ref.get(begun))) return Option.none()
            return Option.some(Option.some(step + 1))
          })
        ),
        Option.match({
          onSome: Effect.succeed,
          onNone: () => Effect.map(raiseTo(step + 1), Option.map(() => step + 1))
        })
      )
    const release = (step: number) =>
      changing.withPermits(1)(
        Effect.flatMap(
          Ref.update(holds, (all) => {
            const at = all.indexOf(step)
            return at < 0 ? all : [...all.slice(0, at), ...all.slice(at + 1)]
          }),
          () => settle
        )
      )
    const holding = <A, E, R>(step: number, effect: Effect.Effect<A, E, R>) =>
      Effect.acquireUseRelease(
        changing.withPermits(1)(Effect.zipRight(Ref.update(holds, (all) => [...all, Math.min(step, top)]), settle)),
        () => effect,
        () => release(Math.min(step, top))
      )
    return { step: Ref.get(floor), raiseFrom: (step) => raiseTo(step + 1), raiseTo, began: Ref.update(begun, (n) => n + 1), outOfMemoryAt, holding }
  })

/**
 * Runs a build (a model's, a restore's re-execution) under the embedded warehouse's cap: a build
 * that reads files holds it at `fileReadingStep` while it runs (a file it read once may not be there
 * to read again, so it is not left to fail first); one that ran out of memory runs again a step
 * higher (`outOfMemoryAt`: holding it, or with the floor raised), as long as the cap can rise. A model's build is one transaction that
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
    // A build holding a step is judged from it: running out of memory there asks for the step past it.
    const attempt = (least: number): Effect.Effect<A, E, R> =>
      Effect.flatMap(Effect.map(cap.step, (floor) => Math.max(floor, least)), (step) =>
        Effect.catchIf(
          build,
          (e) => isOutOfMemoryMessage(e.message),
          (e) =>
            Effect.flatMap(cap.outOfMemoryAt(step), (next) =>
              Option.match(next, {
                onNone: () => Effect.fail(e),
                onSome: (again) => {
                  const limit = describeMemoryLimit(memoryLimitSteps[again])
                  return Effect.logWarning(`retrying with memory_limit = ${limit}: ${subject}: ${e.message.split("\n")[0]}`).pipe(
                    Effect.annotateLogs({ "pcli.retry": true, subject, memory_limit: limit }),
                    Effect.zipRight(cap.holding(again, attempt(again)))
                  )
                }
              })
            )
        )
      )
    const first = options.readsFiles ? cap.holding(fileReadingStep, attempt(fileReadingStep)) : attempt(0)
    return Effect.zipRight(cap.began, first)
  })
