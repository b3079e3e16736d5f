// Freshness checks as a use case: after `pcli run` builds models, and for `pcli test` (which checks
// what is built without building). Results are recorded in the state store for `pcli brief`.
import { Effect } from "effect"
import type { FreshnessCheck } from "../schemas/freshness"
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

/** True when a check should fail `pcli test`: stale, empty or unreadable, at severity `error`. */
export const freshnessFails = (check: FreshnessCheck): boolean => check.severity === "error" && check.status !== "fresh"
