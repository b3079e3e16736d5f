// Freshness checks as a use case: after `pcli run` builds models, and for `pcli test` (which checks
// what is built without building, in testModels). Results are recorded in the state store for `pcli brief`.
import { Effect } from "effect"
import type { FreshnessCheck } from "../schemas/freshness"
import type { RunOutput, RunRecord } from "../schemas/pipeline"
import { checkFreshness, recordFreshness } from "../services/Freshness/Freshness"
import type { CompiledProject } from "../services/Project/compile"

/**
 * Checks and records the freshness of `models` (names; every model of the project when omitted) in
 * `project`, tagged with the run that built them when there is one.
 */
export const freshnessChecks = (project: CompiledProject, input: { readonly models?: ReadonlyArray<string>; readonly runId?: string }) =>
  Effect.gen(function* () {
    const chosen = input.models === undefined ? [...project.models.values()] : input.models.flatMap((n) => project.models.get(n) ?? [])
    const checks = yield* checkFreshness(chosen, input.runId ?? null)
    yield* recordFreshness(checks)
    return checks
  })

/**
 * Records checks made without a run (`pcli test`), as a run's are: `brief` reports the latest of each
 * model. Given its own write layer, so a test with nothing to record never opens (or creates) the store.
 */
export const recordFreshnessChecks = (checks: ReadonlyArray<FreshnessCheck>) => recordFreshness(checks)

/** After a run (`pcli run`, `pcli apply`): the models it built, checked; a stale table is reported, not a failed run. */
export const freshnessAfterRun = (project: CompiledProject, record: RunRecord) => {
  const built = record.models.filter((m) => m.status === "success").map((m) => m.model_name)
  return built.length === 0 ? Effect.succeed([] as ReadonlyArray<FreshnessCheck>) : freshnessChecks(project, { models: built, runId: record.run_id })
}

/** The run's JSON with its freshness checks (omitted when there were none). */
export const withFreshness = (out: RunOutput, checks: ReadonlyArray<FreshnessCheck>): RunOutput =>
  checks.length === 0 ? out : { ...out, freshness: [...checks] }

/** True when a check should fail `pcli test`: stale, empty or unreadable, at severity `error`. */
export const freshnessFails = (check: FreshnessCheck): boolean => check.severity === "error" && check.status !== "fresh"
