import { Effect } from "effect"
import type { ModelExecution } from "../../schemas/pipeline"
import type { CompiledProject } from "../Project/compile"
import type { BuildState } from "./RunStore"
import { executionRow } from "./executionRow"
import type { ProgressEvent } from "./runOptions"

/** `toISOString` of the clock's millis, formatted once per distinct millisecond (a no-op run's 2,000 stamps share a few dozen). */
const isoOnce = () => {
  let last = Number.NaN
  let text = ""
  return (millis: number) => {
    if (millis !== last) {
      last = millis
      text = new Date(millis).toISOString()
    }
    return text
  }
}

/**
 * The executions and progress of a run in which every selected model is `unchanged` (the caller
 * has checked `reusesEverything`): what the per-model loop's unchanged branch (`runOne` in run.ts,
 * its reference) records and emits, model by model in layer order, without a fiber, refs and the
 * inputs and decision effects per model, which were most of a no-op run's own time. Like the loop
 * it polls `stopRequested` before each model; from the first stop on, the models are left to the loop.
 */
export const unchangedExecutions = (
  project: CompiledProject,
  layers: ReadonlyArray<ReadonlyArray<string>>,
  states: ReadonlyMap<string, BuildState>,
  emit: (event: ProgressEvent) => Effect.Effect<void>,
  stopRequested: Effect.Effect<boolean>
): Effect.Effect<ReadonlyArray<ModelExecution>> =>
  Effect.gen(function* () {
    const clock = yield* Effect.clock
    const iso = isoOnce()
    const total = layers.reduce((n, l) => n + l.length, 0)
    const executions: Array<ModelExecution> = []
    for (const layer of layers) {
      for (const name of layer) {
        if (yield* stopRequested) return executions
        const model = project.models.get(name)!
        const previous = states.get(name)!
        const startedAt = clock.unsafeCurrentTimeMillis()
        const finishedAt = clock.unsafeCurrentTimeMillis()
        executions.push(
          executionRow(name, model, executions.length, {
            started_at: iso(startedAt),
            finished_at: iso(finishedAt),
            duration_ms: finishedAt - startedAt,
            sql_hash: previous.sql_hash,
            recipe_hash: previous.recipe_hash,
            intervals_built: model.strategy.type === "time_interval" ? 0 : null,
            status: "unchanged"
          })
        )
        yield* emit({
          kind: "finished",
          model: name,
          status: "unchanged",
          strategy: model.strategy.type,
          duration_ms: finishedAt - startedAt,
          started: executions.length,
          done: executions.length,
          total
        })
      }
    }
    return executions
  })
