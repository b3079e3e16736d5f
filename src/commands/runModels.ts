import { Effect } from "effect"
import type { RunOutput } from "../schemas/pipeline"
import { governAgentFirst, governWarehouse } from "../services/Governance/Governance"
import { gateAgentRun } from "../services/Plans/runGate"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import * as Runner from "../services/Runner/run"
import type { ProgressEvent } from "../schemas/progress"
import { openUnlessReused } from "../services/Runner/noop"
import { runOutput } from "../services/Runner/output"
import { compiledProject } from "./compile"
import { freshnessAfterRun, withFreshness } from "./freshness"
import { UsageError } from "./errors"
import { findBranch, markBranchRun } from "./branch"

export interface RunModelsInput {
  /** Only these models (all when empty). */
  readonly models: ReadonlyArray<string>
  readonly from?: string | undefined
  readonly to?: string | undefined
  /** Rebuild every selected model instead of reusing unchanged ones. */
  readonly fullRefresh?: boolean
  /** Polled before each model starts; true stops the run after the models in flight. */
  readonly stopRequested?: Effect.Effect<boolean>
  readonly onProgress?: (event: ProgressEvent) => Effect.Effect<void>
  /** Build this branch (decision 37): only what differs from its base; production is left as it is. */
  readonly branch?: string | undefined
}

/** `pcli run`: build the selected models in layer order on the chosen target, reusing unchanged ones. */
export const runModels = (input: RunModelsInput) =>
  Effect.gen(function* () {
    if ((input.from === undefined) !== (input.to === undefined)) {
      return yield* new UsageError({ detail: "--from and --to go together: give both or neither" })
    }
    const branch = input.branch === undefined ? undefined : yield* findBranch(input.branch)
    const project = yield* compiledProject
    // An agent answers to the warehouse's governor before its models are evaluated: one row per model either way.
    const governedFirst = yield* governAgentFirst(input.models)
    const gated = yield* gateAgentRun(project, input.models)
    const { root } = yield* ProjectContext
    const runner = yield* Runner.PipelineRunner
    const options: Runner.RunOptions = {
      projectRoot: root,
      reuse: input.fullRefresh !== true,
      ...(input.stopRequested === undefined ? {} : { stopRequested: input.stopRequested }),
      ...(input.models.length > 0 ? { models: input.models } : {}),
      ...(input.from !== undefined && input.to !== undefined ? { partition: { from: input.from, to: input.to } } : {}),
      ...(input.onProgress === undefined ? {} : { onProgress: input.onProgress }),
      ...(branch === undefined ? {} : { branch: { name: branch.name, base: branch.base }, trigger: `branch:${branch.name}` })
    }
    if (branch !== undefined) {
      const witness = governedFirst ?? (yield* governWarehouse(input.models))
      const record = yield* runner.run(project, options)
      yield* witness
      yield* markBranchRun(branch.name, record.run_id, record.finished_at)
      return runOutput(record)
    }
    const { opened, states } = yield* openUnlessReused(project, options, gated)
    // A run that changes the warehouse answers to its governor first (decisions 35); a no-op run changes nothing.
    const witness = governedFirst ?? (opened ? yield* governWarehouse(input.models) : Effect.void)
    const record = yield* runner.run(project, states === undefined ? options : { ...options, buildStates: states })
    yield* witness
    const out: RunOutput = withFreshness(runOutput(record), yield* freshnessAfterRun(project, record))
    return out
  })
