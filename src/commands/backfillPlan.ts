import type { SqlClient } from "@effect/sql"
import type { FileSystem, Path } from "@effect/platform"
import { Effect } from "effect"
import type { BackfillOutput } from "../schemas/reclaim"
import { appendWarnings, checkPartitionWindow, partitionedMembers } from "../services/Backfill/compose"
import { BackfillNoFailedRun, BackfillNothingToDo } from "../services/Backfill/errors"
import { Environment } from "../services/Environment/Environment"
import { Ledger, type LedgerUnavailable } from "../services/Ledger/Ledger"
import type { PlanStoreIo } from "../services/Plans/errors"
import { evaluationRow, governedIssuedReason } from "../services/Plans/ledgerRows"
import { issuedAfterApplied } from "../services/Plans/claims"
import { PlanStore } from "../services/Plans/PlanStore"
import { deriveBackfillScope, fingerprintsOf } from "../services/Plans/derive"
import { readWorkingTree } from "../services/Plans/revisions"
import { ModelNotFound } from "../services/PolicyEngine/attributes"
import { Principal } from "../services/Principal/Principal"
import { type CompileError, PipelineCompiler } from "../services/Project/compile"
import type { InvalidPartitionWindow, ModelFileMismatch, ModelsUnreadable } from "../services/Project/errors"
import { RunStore, type RunStoreFailed } from "../services/Runner/RunStore"
import { UsageError } from "./errors"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"

/** `pcli backfill`. */
export interface BackfillInput {
  readonly models: ReadonlyArray<string>
  readonly fromLastRun: boolean
  readonly from?: string | undefined
  readonly to?: string | undefined
  readonly noDownstream: boolean
}

export type BackfillError =
  | UsageError
  | InvalidPartitionWindow
  | BackfillNothingToDo
  | BackfillNoFailedRun
  | ModelNotFound
  | CompileError
  | ModelsUnreadable
  | ModelFileMismatch
  | RunStoreFailed
  | PlanStoreIo
  | LedgerUnavailable

/** Cost estimates look this many runs back for a model's last success. */
const HISTORY_RUNS = 100

/** Flag conflicts are usage errors (exit 2), checked before anything is read. */
export const checkBackfillFlags = (input: BackfillInput): Effect.Effect<void, UsageError | BackfillNothingToDo> => {
  if (input.fromLastRun && input.models.length > 0) return Effect.fail(new UsageError({ detail: "--from-last-run conflicts with --model" }))
  if ((input.from === undefined) !== (input.to === undefined)) {
    return Effect.fail(new UsageError({ detail: `${input.from === undefined ? "--to" : "--from"} requires ${input.from === undefined ? "--from" : "--to"}` }))
  }
  if (!input.fromLastRun && input.models.length === 0) return Effect.fail(new BackfillNothingToDo())
  return Effect.void
}

const seedsOf = (input: BackfillInput) =>
  Effect.gen(function* () {
    if (!input.fromLastRun) return { trigger: "manual" as const, seeds: [...new Set(input.models)].sort() }
    const latest = yield* Effect.flatMap(RunStore, (s) => s.latestRun)
    if (latest === undefined) return yield* new BackfillNoFailedRun({ runId: null })
    const failed = latest.models.filter((m) => m.status === "failed").map((m) => m.model_name)
    if (failed.length === 0) return yield* new BackfillNoFailedRun({ runId: latest.run_id })
    return { trigger: "last_run_failure" as const, seeds: [...new Set(failed)].sort() }
  })

/**
 * Composes a scoped recovery plan: seeds, their downstream closure (unless --no-downstream),
 * layers over intra-closure edges, the partition window, and a cost estimate from run history.
 * Writes a `backfill` plan (always review-gated, governed as agent); never touches SQL or data.
 */
export const backfillPlan = (
  input: BackfillInput
): Effect.Effect<
  BackfillOutput,
  BackfillError,
  SqlClient.SqlClient | PlanStore | PipelineCompiler | RunStore | Ledger | Principal | Environment | ProjectContext | FileSystem.FileSystem | Path.Path
> =>
  Effect.gen(function* () {
    yield* checkBackfillFlags(input)
    const { modelsDir } = yield* ProjectContext
    const compiler = yield* PipelineCompiler
    const project = yield* compiler.compile({ modelsDir: modelsDir, env: yield* Environment })
    const { trigger, seeds } = yield* seedsOf(input)
    const unknown = seeds.filter((s) => !project.models.has(s))
    if (unknown.length > 0) return yield* new ModelNotFound({ model: unknown.join("', '"), modelsDir: modelsDir })

    // The same derivation apply repeats to check the plan (issue 32 item 3).
    const { layers, models: ordered } = deriveBackfillScope(project, seeds, input.noDownstream)
    const fingerprints = fingerprintsOf(yield* readWorkingTree(modelsDir, new Set(ordered)), ordered)

    const runs = yield* RunStore
    const perModel = yield* Effect.forEach(ordered, (model) =>
      Effect.map(runs.lastSuccessOf(model, HISTORY_RUNS), (last) =>
        last === undefined || last.duration_ms === null
          ? { model_name: model }
          : { model_name: model, duration_ms: last.duration_ms, source_run_id: last.run_id }
      )
    )
    const observed = perModel.filter((p) => p.duration_ms !== undefined)
    const cost = {
      is_estimate: true as const,
      basis: observed.length > 0 ? ("historical_observed" as const) : ("unavailable" as const),
      ...(observed.length > 0 ? { total_duration_ms: observed.reduce((n, p) => n + (p.duration_ms ?? 0), 0) } : {}),
      per_model: perModel
    }
    const window = input.from !== undefined && input.to !== undefined ? { from: input.from, to: input.to } : undefined
    const scope = window === undefined ? undefined : { ...window, models: partitionedMembers(project, ordered) }
    if (scope !== undefined) yield* checkPartitionWindow(project, scope.models, scope)
    const warnings = [
      ...appendWarnings(project, ordered),
      ...(scope !== undefined && scope.models.length === 0 ? ["--from/--to: no model in the closure is time_interval, the window is inert"] : [])
    ]

    const payload = {
      models: ordered,
      execution_layers: layers,
      seed_models: seeds,
      trigger,
      no_downstream: input.noDownstream,
      ...(window === undefined ? {} : { partition_from: window.from, partition_to: window.to }),
      fingerprints
    }
    const actor = yield* Principal
    const store = yield* PlanStore
    const issued = yield* issuedAfterApplied("backfill", payload)
    const written = yield* store.write({ kind: "backfill", payload: issued, principal: { class: actor.class, id: actor.id, source: actor.source } })
    const planId = written.plan.plan_id
    const ledger = yield* Ledger
    yield* ledger.append(
      evaluationRow({
        actor,
        principal: "agent",
        model: `backfill: ${ordered.length} model(s)`,
        capability: "backfill",
        effect: "require_review",
        ruleId: null,
        planId,
        reason: governedIssuedReason("backfill", actor.class)
      })
    )
    return {
      command: "backfill" as const,
      trigger,
      plan_id: planId,
      path: written.path,
      requires_review: true as const,
      seed_models: seeds,
      models: ordered,
      execution_layers: layers,
      ...(scope === undefined ? {} : { partition_scope: scope }),
      cost_estimate: cost,
      warnings,
      review_command: `pcli review ${planId} --approve`,
      apply_command: `pcli apply ${planId}`,
      message: `backfill of ${ordered.length} model(s) planned; a human must approve it before apply`
    }
  })
