import type { SqlClient } from "@effect/sql"
import type { CommandExecutor, FileSystem, Path } from "@effect/platform"
import { Effect } from "effect"
import type { Evaluation, PlanBase, PlanOutput, RunPayload } from "../schemas/plans"
import { Environment } from "../services/Environment/Environment"
import { Ledger, type LedgerUnavailable } from "../services/Ledger/Ledger"
import type { AppliedState } from "../services/Plans/AppliedState"
import { deriveRunPayload, revisionAtBase } from "../services/Plans/derive"
import { type AppliedStateIo, type BaseRefNotFound, type GitFailed, NothingToPlan, type PlanStoreIo, ProposalDenied } from "../services/Plans/errors"
import { absentAttributes, type BuiltContext, type Evaluated, evaluateItems, type GateItem, gateItems, judgedAsBuilt } from "../services/Plans/gate"
import { builtContext } from "../services/Plans/scopeChange"
import { decidedBy } from "../services/PolicyEngine/evaluate"
import { attributesOf } from "../services/PolicyEngine/attributes"
import { resolveCommit } from "../services/Plans/git"
import { appendRows, evaluationRow, plannedReason, refusalRow } from "../services/Plans/ledgerRows"
import { issuedAfterApplied } from "../services/Plans/claims"
import { PlanStore } from "../services/Plans/PlanStore"
import { readWorkingTree, type Revision } from "../services/Plans/revisions"
import { ModelNotFound } from "../services/PolicyEngine/attributes"
import type { PolicyEngine } from "../services/PolicyEngine/PolicyEngine"
import type { RunStore, RunStoreFailed } from "../services/Runner/RunStore"
import { Principal } from "../services/Principal/Principal"
import { type CompiledProject, type CompileError, PipelineCompiler } from "../services/Project/compile"
import type { ModelFileMismatch, ModelsUnreadable } from "../services/Project/errors"
import type { StatementFailed } from "../services/Warehouse/Warehouse"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"

/** `pcli plan [--model M…] [--base REF]`. */
export interface PlanCreateInput {
  /** Restrict the diff to these models (their downstream closure is still rebuilt). */
  readonly models: ReadonlyArray<string>
  /** Diff against this git ref instead of the last applied state. */
  readonly base?: string | undefined
  /** MCP `propose`: record an `ai_authored` plan, and record none when policy denies (decisions.md 32). */
  readonly aiAuthored?: boolean | undefined
}

export type PlanCreateError =
  | CompileError
  | ModelsUnreadable
  | ModelFileMismatch
  | ModelNotFound
  | BaseRefNotFound
  | GitFailed
  | AppliedStateIo
  | PlanStoreIo
  | StatementFailed
  | LedgerUnavailable
  | ProposalDenied
  | RunStoreFailed
  | NothingToPlan

export type PlanCreateRequirements =
  | SqlClient.SqlClient
  | PlanStore
  | AppliedState
  | PipelineCompiler
  | PolicyEngine
  | RunStore
  | Ledger
  | Principal
  | Environment
  | ProjectContext
  | FileSystem.FileSystem
  | Path.Path
  | CommandExecutor.CommandExecutor

const baseRevision = (modelsDir: string, ref: string | undefined) =>
  Effect.gen(function* () {
    const base: PlanBase = ref === undefined ? { kind: "applied" } : { kind: "git", ref, commit: yield* resolveCommit(modelsDir, ref) }
    return { base, revision: yield* revisionAtBase(modelsDir, base) }
  })

/** Every model named by `--model` must exist on one side of the diff. */
const checkNamed = (names: ReadonlyArray<string>, base: Revision, working: Revision, modelsDir: string) =>
  Effect.forEach(names, (model) =>
    base.has(model) || working.has(model) ? Effect.void : Effect.fail(new ModelNotFound({ model, modelsDir }))
  )

/** `propose` for each model the change touches, as it is in the working tree (as recorded at the base when removed). */
const proposeItems = (changes: RunPayload["changes"], project: CompiledProject, built: BuiltContext): ReadonlyArray<GateItem> =>
  changes.map((c) => {
    const m = project.models.get(c.model)
    const item = { model: c.model, capability: "propose" as const, attributes: m === undefined ? absentAttributes(c.model, c.base_attributes) : attributesOf(m) }
    return judgedAsBuilt(item, m, built, false)
  })

/** What the user runs next; a deny recorded while planning is said up front. */
const nextStep = (planId: string, kind: string, evaluated: ReadonlyArray<Evaluated>): string => {
  const denied = evaluated.find((e) => e.verdict.effect === "deny")
  if (denied !== undefined) {
    return `policy denies ${denied.item.model} (${decidedBy(denied.verdict)}) for this principal: pcli apply ${planId} will be refused`
  }
  return kind === "escalation" || kind === "ai_authored" ? `pcli review ${planId} --approve, then pcli apply ${planId}` : `pcli apply ${planId}`
}

/**
 * Diffs the working tree against the base, classifies each changed model, evaluates policy
 * for the planning principal (one ledger row per evaluation) and writes a `run` plan, or an
 * `escalation` plan when an evaluation resolved `require_review`.
 */
export const planCreate = (input: PlanCreateInput): Effect.Effect<PlanOutput, PlanCreateError, PlanCreateRequirements> =>
  Effect.gen(function* () {
    const actor = yield* Principal
    const ledger = yield* Ledger
    const store = yield* PlanStore
    const env = yield* Environment
    const { modelsDir } = yield* ProjectContext

    const prepared = yield* Effect.gen(function* () {
      const compiler = yield* PipelineCompiler
      const project = yield* compiler.compile({ modelsDir: modelsDir, env })
      const working = yield* readWorkingTree(modelsDir)
      const { base, revision } = yield* baseRevision(modelsDir, input.base)
      yield* checkNamed(input.models, revision, working, modelsDir)
      const seeds = input.models.length > 0 ? input.models : [...new Set([...working.keys(), ...revision.keys()])]
      // What each model was last built under: scope attribute changes since then are breaking, and the gate judges both.
      const built = yield* builtContext
      const payload = yield* deriveRunPayload({ base, baseRevision: revision, working, project, seeds, env, built })
      if (payload.changes.length === 0) return yield* new NothingToPlan({ base: base.kind === "git" ? `--base ${base.ref}` : "the last applied state" })
      return { project, payload, built }
    }).pipe(
      // A plan that cannot be made is a refusal too: one row, nothing evaluated.
      Effect.tapError((error) =>
        ledger.append(refusalRow({ actor, principal: actor.class, capability: "propose", planId: null, error }))
      )
    )
    const { project, payload, built } = prepared
    const { base, changes, models } = payload

    // A proposal is first checked at `propose` for each model it changes (decisions.md 39).
    const proposed = input.aiAuthored === true ? yield* evaluateItems(actor.class, proposeItems(changes, project, built)) : undefined
    const refusedAt = proposed?.find((e) => e.verdict.effect === "deny")
    // Evaluated exactly as apply will evaluate it (the kind does not change what is asked).
    const items = gateItems({ kind: "run", payload }, project, built)
    const evaluated = refusedAt === undefined ? yield* evaluateItems(actor.class, items) : []
    const kind = input.aiAuthored === true ? "ai_authored" : evaluated?.some((e) => e.verdict.effect === "require_review") === true ? "escalation" : "run"
    const denied = refusedAt ?? (input.aiAuthored === true ? evaluated?.find((e) => e.verdict.effect === "deny") : undefined)
    if (denied !== undefined) {
      // A denied proposal records its evaluations and no plan.
      yield* appendRows(
        ledger,
        [...(proposed ?? []), ...(evaluated ?? [])].map(({ item, verdict }) =>
          evaluationRow({ actor, principal: actor.class, model: item.model, capability: item.capability, effect: verdict.effect, ruleId: verdict.static.matched_rule, planId: null, reason: `${verdict.reason}; proposal refused, no plan recorded` })
        )
      )
      return yield* new ProposalDenied({ model: denied.item.model, capability: denied.item.capability, rule: denied.verdict.matched_rule, reason: denied.verdict.reason, decidedBy: decidedBy(denied.verdict) })
    }
    const issued = yield* issuedAfterApplied(kind, payload)
    const written = yield* store.write({ kind, payload: issued, principal: { class: actor.class, id: actor.id, source: actor.source } })
    const planId = written.plan.plan_id

    const rows = yield* appendRows(
      ledger,
      [...(proposed ?? []), ...(evaluated ?? [])].map(({ item, verdict }) =>
        evaluationRow({
          actor,
          principal: actor.class,
          model: item.model,
          capability: item.capability,
          effect: verdict.effect,
          ruleId: verdict.static.matched_rule,
          planId,
          reason: plannedReason(verdict.reason, kind)
        })
      )
    )
    const evaluations = (evaluated ?? []).map(({ item, verdict }, i): Evaluation => ({
      model: item.model,
      capability: item.capability,
      effect: verdict.effect,
      rule_id: verdict.static.matched_rule,
      reason: verdict.reason,
      // The propose rows come first; the plan's evaluations are the apply-time ones.
      decision_ref: rows[(proposed?.length ?? 0) + i]!.decision_ref
    }))
    return {
      command: "plan" as const,
      plan_id: planId,
      kind,
      path: written.path,
      written: written.written,
      base,
      changes: [...changes],
      models: [...models],
      policy: evaluated === undefined ? ("not_configured" as const) : ("evaluated" as const),
      evaluations,
      next: nextStep(planId, kind, evaluated ?? [])
    }
  })
