import { Effect } from "effect"
import type { ModelRunStatus, RunStatus } from "../../schemas/pipeline"
import type { ProgressEvent } from "../../schemas/progress"
import type { RetryPolicy } from "../Warehouse/retry"
import { type BuildState, INTERRUPTED } from "./RunStore"
import type { BuildResult, PartitionOptions } from "./strategies"

export type { ProgressEvent }

export interface RunOptions {
  /** Directory project-relative `storage_prefix`es resolve against. */
  readonly projectRoot: string
  /** A `--from/--to` window: checked against the selected time_interval models before any work. */
  readonly partition?: PartitionOptions
  /**
   * Run only these models, in project order (backfill); upstreams outside the set impose nothing.
   * An unknown name fails the run with `ModelsNotFound` before any work.
   */
  readonly models?: ReadonlyArray<string>
  readonly trigger?: string
  /** The plan `pcli apply` is executing: stored on the run for the custody chain. */
  readonly planId?: string
  /** Models of one layer run at most this many at once (default: all). */
  readonly concurrency?: number
  /** Retries of a model whose build failed transiently; each retry is logged at WARN (see `retryTransient`). */
  readonly retry?: RetryPolicy
  /**
   * Skip models whose last successful build still stands (`unchanged`) and build only the stale
   * intervals of time_interval models. Off (rebuild everything) unless asked: `pcli run` asks
   * unless `--full-refresh`; plan apply and backfill rebuild what they name.
   */
  readonly reuse?: boolean
  /** Polled before each model starts: true once a stop was asked for (Ctrl-C); started models finish. */
  readonly stopRequested?: Effect.Effect<boolean>
  readonly onProgress?: (event: ProgressEvent) => Effect.Effect<void>
  /** The state store's builds as the caller has just read them (`openUnlessReused`): the run does not read them again. */
  readonly buildStates?: ReadonlyMap<string, BuildState>
  /** Fixed run id (tests); otherwise minted from the clock as `run-YYYYMMDD-HHMMSS-mmm`. */
  readonly runId?: string
  /**
   * The branch whose views the run sets, with its base environment (decision 37): only models whose
   * fingerprint differs from the base's are built; absent, the run builds production.
   */
  readonly branch?: { readonly name: string; readonly base: string }
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0")

export const mintRunId = (millis: number): string => {
  const d = new Date(millis)
  return `run-${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}-${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}-${pad(d.getUTCMilliseconds(), 3)}`
}

/**
 * interrupted: a stop left models unstarted; success: nothing failed or was skipped (unchanged
 * models count as fine); failure: nothing succeeded; partial_failure otherwise.
 */
export const runStatusOf = (
  models: ReadonlyArray<{ readonly status: ModelRunStatus; readonly error_code?: string | null }>
): RunStatus => {
  if (models.some((m) => m.status === "skipped" && m.error_code === INTERRUPTED)) return "interrupted"
  const ok = models.filter((m) => m.status === "success" || m.status === "unchanged").length
  if (ok === models.length) return "success"
  return ok === 0 ? "failure" : "partial_failure"
}

/** Memoizes an effect per key for one run: concurrent callers share the first evaluation. */
export const memoByKey = <A, E, R>(f: (key: string) => Effect.Effect<A, E, R>) => {
  const cache = new Map<string, Effect.Effect<A, E, R>>()
  return (key: string) =>
    Effect.suspend(() => {
      let cached = cache.get(key)
      if (cached === undefined) {
        cached = Effect.runSync(Effect.cached(f(key)))
        cache.set(key, cached)
      }
      return cached
    })
}

export const mergeResults = (results: ReadonlyArray<BuildResult>): BuildResult => ({
  rows: results.reduce((n, r) => n + r.rows, 0),
  warnings: results.flatMap((r) => r.warnings),
  sqlAsRun: results.map((r) => r.sqlAsRun).join("\n;\n"),
  output: undefined
})

