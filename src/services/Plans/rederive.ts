import type { CommandExecutor, FileSystem, Path } from "@effect/platform"
import { Effect } from "effect"
import { type GatedPlan, isGatedPlan, type Plan, type PlanBody, type RunLikePlan } from "../../schemas/plans"
import { canonicalJson } from "../Artifacts/artifacts"
import { Environment } from "../Environment/Environment"
import type { CompileError, CompiledProject } from "../Project/compile"
import { PipelineCompiler } from "../Project/compile"
import type { ModelFileMismatch, ModelsUnreadable } from "../Project/errors"
import { ProjectContext } from "../ProjectConfig/ProjectContext"
import type { StatementFailed } from "../Warehouse/Warehouse"
import type { AppliedState } from "./AppliedState"
import { deriveBackfillScope, deriveRunPayload, fingerprintsOf, revisionAtBase } from "./derive"
import { type AppliedStateIo, type GitFailed, PlanIntegrity, PlanStale } from "./errors"
import { readWorkingTree, type Revision, staleModels } from "./revisions"
import type { PolicyEngine } from "../PolicyEngine/PolicyEngine"
import type { RunStore, RunStoreFailed } from "../Runner/RunStore"
import { type BuiltContext, builtContext } from "./scopeChange"
import type { ModelFactsSource } from "./gate"

/**
 * Issue 32 item 3: apply never trusts what a plan file says about itself. The change classes,
 * the model set and the downstream closure are derived again from the working tree with the
 * functions `pcli plan` and `pcli backfill` use; any difference is `plan-stale`, naming the models.
 */

export type RederiveError = PlanStale | PlanIntegrity | CompileError | ModelsUnreadable | ModelFileMismatch | StatementFailed | AppliedStateIo | GitFailed | RunStoreFailed

export interface Rederived {
  /** Undefined for a view swap whose gate reads the facts its plan carries (no compile). */
  readonly project: CompiledProject | undefined
  /** What the gate reads of each model: the compiled project, or those facts. */
  readonly facts: ModelFactsSource
  readonly current: Revision
  /** The plan as derived now: what the gate evaluates (never the recorded claims). */
  readonly body: PlanBody
  /** What each model was last built under, read once for the derivation and the gate. */
  readonly built: BuiltContext
}

const sameValue = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null)

/** Names present on one side only, and names whose values differ. */
const differing = <V>(recorded: ReadonlyMap<string, V>, derived: ReadonlyMap<string, V>): ReadonlyArray<string> =>
  [...new Set([...recorded.keys(), ...derived.keys()])].filter((k) => !recorded.has(k) || !derived.has(k) || !sameValue(recorded.get(k), derived.get(k)))

const indexed = (names: ReadonlyArray<string>) => new Map(names.map((n, i) => [n, i]))

/** Differences between two fingerprint records and two ordered model lists, as model names. */
const scopeDiff = (
  recorded: { readonly models: ReadonlyArray<string>; readonly fingerprints: Readonly<Record<string, string | null>> },
  derived: { readonly models: ReadonlyArray<string>; readonly fingerprints: Readonly<Record<string, string | null>> }
) => [
  ...differing(indexed(recorded.models), indexed(derived.models)),
  ...differing(new Map(Object.entries(recorded.fingerprints)), new Map(Object.entries(derived.fingerprints)))
]

const runLike = (plan: RunLikePlan, project: CompiledProject, current: Revision, modelsDir: string, env: Readonly<Record<string, string | undefined>>, built: BuiltContext) =>
  Effect.gen(function* () {
    const baseRevision = yield* revisionAtBase(modelsDir, plan.payload.base)
    const payload = yield* deriveRunPayload({ base: plan.payload.base, baseRevision, working: current, project, seeds: plan.payload.changes.map((c) => c.model), env, built })
    const models = [
      ...differing(new Map(plan.payload.changes.map((c) => [c.model, c])), new Map(payload.changes.map((c) => [c.model, c]))),
      ...scopeDiff(plan.payload, payload)
    ]
    return { models, body: { kind: plan.kind, payload } as PlanBody }
  })

const stringList = (value: unknown): ReadonlyArray<string> | undefined =>
  Array.isArray(value) && value.every((v) => typeof v === "string") ? (value as ReadonlyArray<string>) : undefined

const modelNamesOf = (entries: unknown): ReadonlyArray<string> | undefined =>
  Array.isArray(entries) && entries.every((e) => typeof e === "object" && e !== null && typeof (e as { model_name?: unknown }).model_name === "string")
    ? [...new Set(entries.map((e) => (e as { model_name: string }).model_name))].sort()
    : undefined

/** gc and restore name the models of their entries; backfill derives its closure from its seeds. */
const gated = (plan: GatedPlan, project: CompiledProject | undefined, current: Revision, integrity: (detail: string) => PlanIntegrity) =>
  Effect.gen(function* () {
    const p = plan.payload
    let models: ReadonlyArray<string>
    let extra: ReadonlyArray<string> = []
    if (plan.kind === "backfill") {
      if (project === undefined) return yield* integrity("a backfill is derived from the compiled project")
      const seeds = stringList(p["seed_models"])
      if (seeds === undefined || typeof p["no_downstream"] !== "boolean") return yield* integrity("payload: a backfill plan records seed_models and no_downstream")
      const scope = deriveBackfillScope(project, seeds, p["no_downstream"])
      models = scope.models
      const recordedLayers = p["execution_layers"]
      if (!Array.isArray(recordedLayers) || !recordedLayers.every((l) => stringList(l) !== undefined)) {
        return yield* integrity("payload: a backfill plan records execution_layers")
      }
      // Each model keyed by its layer: a model moved to another layer differs.
      const keyed = (layers: ReadonlyArray<ReadonlyArray<string>>) => new Map(layers.flatMap((layer, i) => layer.map((m) => [m, i] as const)))
      extra = differing(keyed(recordedLayers as ReadonlyArray<ReadonlyArray<string>>), keyed(scope.layers))
    } else {
      const field = plan.kind === "gc" ? "evictions" : plan.kind === "restore" ? "restorations" : "views"
      const named = modelNamesOf(p[field])
      // A gc plan's table drops (issue 34 item 4) name their models too.
      const drops = plan.kind === "gc" && p["table_drops"] !== undefined ? modelNamesOf(p["table_drops"]) : []
      if (named === undefined || drops === undefined) return yield* integrity(`payload: a ${plan.kind} plan records its ${field}`)
      models = [...new Set([...named, ...drops])].sort()
    }
    const payload = { ...p, models, fingerprints: fingerprintsOf(current, models) }
    return { models: [...extra, ...scopeDiff({ models: p.models, fingerprints: p.fingerprints ?? {} }, payload)], body: { kind: plan.kind, payload } as PlanBody }
  })

/**
 * A promote or rollback is derived from its views and fingerprints alone: only those models' files
 * are read (a promote's state hash has already covered every file). Other plans read the whole tree.
 */
const viewSwapModels = (plan: Plan, fingerprints: Readonly<Record<string, string | null>>): ReadonlySet<string> | undefined =>
  isGatedPlan(plan) && (plan.kind === "promote" || plan.kind === "rollback")
    ? new Set([...Object.keys(fingerprints), ...(modelNamesOf(plan.payload["views"]) ?? [])])
    : undefined

/**
 * Compiles the working tree, checks the plan's fingerprints, then derives the plan again and compares.
 * A view swap given `facts` (checkViewSwap found them valid) is derived without a compile.
 */
export const rederivePlan = (
  plan: Plan,
  planPath: string,
  facts?: ModelFactsSource
): Effect.Effect<
  Rederived,
  RederiveError,
  | PipelineCompiler
  | Environment
  | ProjectContext
  | AppliedState
  | PolicyEngine
  | RunStore
  | FileSystem.FileSystem
  | Path.Path
  | CommandExecutor.CommandExecutor
> =>
  Effect.gen(function* () {
    const planId = plan.plan_id
    const { modelsDir } = yield* ProjectContext
    const env = yield* Environment
    // Compiled before any check, so what runs is what was checked. A view swap runs nothing: its facts suffice.
    const swapFacts = facts !== undefined && viewSwapModels(plan, {}) !== undefined ? facts : undefined
    const project = swapFacts !== undefined ? undefined : yield* Effect.flatMap(PipelineCompiler, (c) => c.compile({ modelsDir, env }))
    const fingerprints = plan.payload.fingerprints
    if (fingerprints === undefined) return yield* new PlanIntegrity({ planId, path: planPath, detail: "payload: fingerprints are missing" })
    const current = yield* readWorkingTree(modelsDir, viewSwapModels(plan, fingerprints))
    const changed = staleModels(fingerprints, current)
    if (changed.length > 0) return yield* new PlanStale({ planId, models: changed })
    const integrity = (detail: string) => new PlanIntegrity({ planId, path: planPath, detail })
    const built = yield* builtContext
    const derived = isGatedPlan(plan)
      ? yield* gated(plan, project, current, integrity)
      : yield* runLike(plan, project ?? (yield* Effect.dieMessage("a run plan is always compiled")), current, modelsDir, env, built)
    const models = [...new Set(derived.models)].sort()
    if (models.length > 0) {
      return yield* new PlanStale({ planId, models, detail: "what it records (change class, model set or downstream closure) differs from what the working tree derives for" })
    }
    return { project, facts: swapFacts ?? project!, current, body: derived.body, built }
  })
