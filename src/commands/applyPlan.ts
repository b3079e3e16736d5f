import type { CommandExecutor, FileSystem, Path } from "@effect/platform"
import { Effect } from "effect"
import type { Principal as PrincipalClass } from "../schemas/policy"
import { type ApplyOutput, type Evaluation, type GatedPayload, isGatedPlan, type Plan, type ReviewMarker, type VerificationOutput } from "../schemas/plans"
import type { Environment } from "../services/Environment/Environment"
import { type GovernanceMismatch, governAgentFirst, governWarehouse } from "../services/Governance/Governance"
import { Ledger, type LedgerUnavailable } from "../services/Ledger/Ledger"
import { ledgerHead } from "../services/Ledger/head"
import { AppliedState } from "../services/Plans/AppliedState"
import {
  type AppliedStateIo,
  type FreezeChangedDuringApply,
  type InvalidMarker,
  type MarkerMissing,
  type MarkerUnrecorded,
  type PlanAlreadyApplied,
  type PlanStoreIo,
  PlanKindNotExecutable,
  type PlanStale,
  type PolicyDenied
} from "../services/Plans/errors"
import {
  checkMarker,
  denial,
  enforcedPrincipal,
  EXECUTABLE,
  agentPromoteRequirement,
  type Evaluated,
  type ModelFactsSource,
  evaluateItems,
  gateItems,
  markerRequirement
} from "../services/Plans/gate"
import { appendRows, evaluationRow, refusalReason, refusalRow, verificationRow } from "../services/Plans/ledgerRows"
import { PlanStore, type PlanReadError } from "../services/Plans/PlanStore"
import { rederivePlan, type RederiveError } from "../services/Plans/rederive"
import { fingerprintOf, type Revision } from "../services/Plans/revisions"
import { runCheck, verificationReason } from "../services/Plans/verify"
import { type Claim, claimUnlessRefused, releaseFailed, settledBy } from "../services/Plans/claims"
import { PolicyEngine } from "../services/PolicyEngine/PolicyEngine"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { type ActingPrincipal, Principal } from "../services/Principal/Principal"
import type { CompileError, CompiledProject, PipelineCompiler } from "../services/Project/compile"
import type { ModelFileMismatch, ModelsUnreadable } from "../services/Project/errors"
import { runOutput } from "../services/Runner/output"
import { freshnessAfterRun, withFreshness } from "./freshness"
import type { FreshnessRecordFailed } from "../services/Freshness/Freshness"
import { PipelineRunner } from "../services/Runner/run"
import type { RunRecord } from "../schemas/pipeline"
import type { RunStore, RunStoreFailed } from "../services/Runner/RunStore"
import type { SelectionError } from "../services/Runner/selection"
import type { WarehouseLocked } from "../services/Warehouse/embedded"
import { type StatementFailed, Warehouse } from "../services/Warehouse/Warehouse"

/** The `--from/--to` window a backfill plan recorded (the plan id covers it). */
const backfillWindow = (payload: GatedPayload) => {
  const from = payload["partition_from"]
  const to = payload["partition_to"]
  return typeof from === "string" && typeof to === "string" ? { from, to } : undefined
}

import type { SqlClient } from "@effect/sql"
import type { GcApplyOutput, RestoreApplyOutput } from "../schemas/reclaim"
import { applyRestore } from "./restoreApply"
import type { PhysicalDeleteUnsupported } from "../services/Reclamation/errors"
import { applyGc } from "./gcApply"
import type { PromoteApplyOutput } from "../schemas/environment"
import type { BranchMoved, InvalidBranchName, StateHashMismatch, UnknownBranch } from "./environmentErrors"
import { checkViewSwap, isViewSwap, swapViews } from "./promoteApply"

/** `pcli apply <plan-id>`. */
export interface ApplyInput {
  readonly planId: string
}

export type ApplyRefusal = PlanReadError | PlanStale | PolicyDenied | MarkerMissing | InvalidMarker | MarkerUnrecorded | PlanAlreadyApplied | FreezeChangedDuringApply | PlanKindNotExecutable

export type ApplyError =
  | ApplyRefusal
  | RederiveError
  | CompileError
  | ModelsUnreadable
  | ModelFileMismatch
  | PlanStoreIo
  | AppliedStateIo
  | RunStoreFailed
  | FreshnessRecordFailed
  | SelectionError
  | LedgerUnavailable
  | PhysicalDeleteUnsupported
  | StatementFailed
  | WarehouseLocked
  | GovernanceMismatch
  | StateHashMismatch
  | BranchMoved
  | UnknownBranch
  | InvalidBranchName

export type ApplyRequirements =
  | SqlClient.SqlClient
  | RunStore
  | CommandExecutor.CommandExecutor
  | PlanStore
  | AppliedState
  | PolicyEngine
  | Ledger
  | Principal
  | PipelineCompiler
  | PipelineRunner
  | Warehouse
  | Environment
  | FileSystem.FileSystem
  | Path.Path
  | ProjectContext

interface Admitted {
  readonly plan: Plan
  readonly principal: PrincipalClass
  /** Undefined for a view swap judged on the facts its plan carries (it builds nothing). */
  readonly project: CompiledProject | undefined
  readonly current: Revision
  readonly evaluated: ReadonlyArray<Evaluated> | undefined
  readonly marker: ReviewMarker | undefined
  readonly claim: Claim | undefined
  readonly evaluations: ReadonlyArray<Evaluation>
}

/**
 * Steps 1–3: integrity and staleness, the policy gate, the marker gate. Every refusal leaves
 * exactly one row per evaluated model carrying its code (or one row when nothing was evaluated).
 */
const admit = (input: ApplyInput, actor: ActingPrincipal, executable: ReadonlySet<string>) =>
  Effect.gen(function* () {
    const store = yield* PlanStore
    const ledger = yield* Ledger
    const refused = (principal: PrincipalClass, planId: string) => (error: { readonly code: string; readonly message: string }) =>
      ledger.append(refusalRow({ actor, principal, capability: "apply", planId, error }))

    // (1) Integrity and staleness: the plan is derived again from the working tree, and the gate
    // evaluates what was derived, never what the file claims.
    const plan = yield* store.read(input.planId).pipe(Effect.tapError(refused(actor.class, input.planId)))
    const planId = plan.plan_id
    const principal = enforcedPrincipal(plan.kind, actor.class)
    // A promote is judged on what was approved: an edit since, or a branch that moved, refuses it first.
    let facts: ModelFactsSource | undefined
    if (isGatedPlan(plan) && isViewSwap(plan)) {
      // Its warehouse already exists (a branch ran there): it opens while the gate works (the swap awaits that same
      // open). A refusal interrupts it and leaves the file as it was: nothing is written to it.
      yield* Effect.flatMap(Warehouse, (wh) => (wh.open === undefined ? Effect.void : Effect.zipLeft(Effect.fork(Effect.ignore(wh.open)), Effect.yieldNow())))
      facts = yield* checkViewSwap(plan).pipe(Effect.tapError(refused(principal, planId)))
    }
    const rederived = yield* rederivePlan(plan, store.planPath(planId), facts).pipe(Effect.tapError(refused(principal, planId)))
    const { project, current, body, built } = rederived

    // (2) The policy gate, for the enforced principal; freezes and budgets only tighten. The head seen
    // first: on a shared store the claim re-reads the freezes after it, holding the chain (decision 36).
    const gateHead = (yield* ledgerHead).seq
    const evaluated = yield* evaluateItems(principal, gateItems(body, rederived.facts, built))
    const denied = evaluated === undefined ? undefined : denial(planId, evaluated)

    // (3) The marker gate: a deny is refused whatever marker exists.
    const why = denied === undefined ? (markerRequirement(plan, evaluated ?? []) ?? agentPromoteRequirement(plan.kind, principal)) : undefined
    const markerOutcome =
      why === undefined ? undefined : yield* Effect.either(Effect.flatMap(store.marker(planId), (state) => checkMarker(planId, state, why)))
    const gateRefusal =
      denied ??
      (markerOutcome?._tag === "Left" ? markerOutcome.left : undefined) ??
      (executable.has(plan.kind) ? undefined : new PlanKindNotExecutable({ planId, kind: plan.kind }))
    const marker = markerOutcome?._tag === "Right" ? markerOutcome.right : undefined
    // (3b) A plan applies once: the claim is taken before any row says "applied".
    const { refusal, claim } = yield* claimUnlessRefused(planId, gateRefusal, marker, actor, gateHead)

    if (evaluated === undefined) {
      // No [policy] block: nothing is evaluated or recorded, but a refusal still leaves its row.
      if (refusal !== undefined) {
        yield* refused(principal, planId)(refusal)
        return yield* refusal
      }
      return { plan, principal, project, current, evaluated, marker, claim, evaluations: [] } satisfies Admitted
    }
    const outcome =
      refusal !== undefined
        ? refusalReason(refusal)
        : marker !== undefined
          ? `approved by ${marker.approver.principal} (${marker.approver.email}) at ${marker.reviewed_at}; applied`
          : "applied"
    const rows = yield* appendRows(
      ledger,
      evaluated.map(({ item, verdict }) =>
        evaluationRow({
          actor,
          principal,
          model: item.model,
          capability: item.capability,
          effect: verdict.effect,
          ruleId: verdict.static.matched_rule,
          planId,
          reason: `${verdict.reason}; ${outcome}`
        })
      )
    ).pipe(Effect.tapError(() => releaseFailed(claim)))
    const evaluations = evaluated.map(({ item, verdict }, i): Evaluation => ({
      model: item.model,
      capability: item.capability,
      effect: verdict.effect,
      rule_id: verdict.static.matched_rule,
      reason: verdict.reason,
      decision_ref: rows[i]!.decision_ref
    }))
    if (refusal !== undefined) return yield* refusal
    return { plan, principal, project, current, evaluated, marker, claim, evaluations } satisfies Admitted
  })

/** Step 5: for each allow rule with `verify_after` that admitted a model, run its checks and record the outcome. */
const verify = (admitted: Admitted, record: RunRecord, actor: ActingPrincipal) =>
  Effect.gen(function* () {
    const engine = yield* PolicyEngine
    const ledger = yield* Ledger
    const built = new Map(record.models.map((m) => [m.model_name, m.status]))
    const byRule = new Map<number, Array<string>>()
    for (const { item, verdict } of admitted.evaluated ?? []) {
      const ruleId = verdict.static.matched_rule
      const rule = ruleId === null ? undefined : engine.rule(ruleId)
      if (rule === undefined || rule.effect !== "allow" || verdict.effect !== "allow" || rule.verify_after.length === 0) continue
      byRule.set(ruleId!, [...(byRule.get(ruleId!) ?? []), item.model])
    }
    return yield* Effect.forEach([...byRule].sort(([a], [b]) => a - b), ([ruleId, models]) =>
      Effect.gen(function* () {
        const checks = engine.rule(ruleId)!.verify_after
        const results = yield* Effect.forEach(models.flatMap((model) => checks.map((check) => ({ model, check }))), ({ model, check }) => {
          const compiled = admitted.project?.models.get(model)
          if (compiled === undefined || built.get(model) !== "success") {
            return Effect.succeed({ check, model, status: "failed" as const, detail: `model ${model} did not build in this apply` })
          }
          return runCheck(check, compiled)
        })
        const passed = results.every((r) => r.status === "passed")
        const row = yield* ledger.append(
          verificationRow({ actor, principal: admitted.principal, planId: admitted.plan.plan_id, ruleId, passed, reason: verificationReason(results) })
        )
        return { rule_id: ruleId, passed, checks: results, decision_ref: row.decision_ref } satisfies VerificationOutput
      })
    )
  })

/**
 * `pcli apply <id>`: (1) integrity and staleness, (2) the policy gate for the stricter of the
 * invoker and the kind's default principal, (3) the marker gate, (4) the standard run path for
 * the plan's models, (5) `verify_after` checks under allow rules. Successfully built models
 * become the applied state the next `pcli plan` diffs against.
 */
export const applyAnyPlan = (input: ApplyInput): Effect.Effect<ApplyOutput | GcApplyOutput | RestoreApplyOutput | PromoteApplyOutput, ApplyError, ApplyRequirements> =>
  applyWith(input, true)

/** `applyAnyPlan` for callers that build models: gc and restore plans are refused as not executable here. */
export const applyPlan = (input: ApplyInput): Effect.Effect<ApplyOutput, ApplyError, ApplyRequirements> => applyWith(input, false)

function applyWith(input: ApplyInput, executeGc: true): Effect.Effect<ApplyOutput | GcApplyOutput | RestoreApplyOutput | PromoteApplyOutput, ApplyError, ApplyRequirements>
function applyWith(input: ApplyInput, executeGc: false): Effect.Effect<ApplyOutput, ApplyError, ApplyRequirements>
function applyWith(input: ApplyInput, executeGc: boolean): Effect.Effect<ApplyOutput | GcApplyOutput | RestoreApplyOutput | PromoteApplyOutput, ApplyError, ApplyRequirements> {
  return Effect.gen(function* () {
    const actor = yield* Principal
    // Project-relative `storage_prefix`es resolve against the project's root.
    const projectRoot = (yield* ProjectContext).root
    // An agent answers to the warehouse's governor before the gates evaluate (and record) anything.
    const governedFirst = yield* governAgentFirst([], input.planId)
    const admitted = yield* admit(input, actor, executeGc ? EXECUTABLE : new Set([...EXECUTABLE].filter((k) => k !== "gc" && k !== "restore" && !isViewSwap({ kind: k }))))
    return yield* execute(admitted, actor, projectRoot, executeGc, governedFirst).pipe(settledBy(admitted.claim))
  })
}

/** Once admitted and claimed: the warehouse and its governor, then steps 4–5. */
const execute = (
  admitted: Admitted,
  actor: ActingPrincipal,
  projectRoot: string,
  executeGc: boolean,
  governedFirst: Effect.Effect<void, StatementFailed | LedgerUnavailable> | undefined
) =>
  Effect.gen(function* () {
    // The warehouse opens once every gate has passed: a refused apply leaves no warehouse file behind.
    const warehouse = yield* Warehouse
    if (warehouse.open !== undefined) yield* warehouse.open
    // Its governor next (decisions 35); the head is witnessed after the apply's last ledger row.
    const witness = governedFirst ?? (yield* governWarehouse([...new Set(admitted.evaluations.map((e) => e.model))], admitted.plan.plan_id))
    return yield* Effect.tap(buildAndVerify(admitted, executeGc, projectRoot, actor), () => witness)
  })

/** Steps 4 and 5 of an admitted plan: execution through the standard run path, then verification. */
const buildAndVerify = (admitted: Admitted, executeGc: boolean, projectRoot: string, actor: ActingPrincipal) =>
  Effect.gen(function* () {
    const { plan } = admitted
    const runner = yield* PipelineRunner
    let record: RunRecord
    if (isGatedPlan(plan)) {
      // admit already refused (and recorded) the kinds apply cannot execute; this narrows the type.
      if (plan.kind === "gc" && executeGc) return yield* applyGc(plan)
      if (plan.kind === "restore" && executeGc) return yield* applyRestore(plan, projectRoot)
      if (isViewSwap(plan) && executeGc) {
        // (4) A promote or rollback builds nothing: it points production's views, all or none.
        const views = yield* swapViews(plan)
        const out: PromoteApplyOutput = {
          command: "promote_apply",
          plan_id: plan.plan_id,
          kind: plan.kind as "promote" | "rollback",
          principal: admitted.principal,
          policy: admitted.evaluated === undefined ? "not_configured" : "evaluated",
          views,
          tables_created: 0
        }
        return out
      }
      if (plan.kind !== "backfill") return yield* new PlanKindNotExecutable({ planId: plan.plan_id, kind: plan.kind })
    }
    // Only a view swap goes without a compile (rederivePlan), and it has returned above.
    const project = admitted.project ?? (yield* Effect.dieMessage("a plan that builds is always compiled"))
    if (isGatedPlan(plan)) {
      // (4) A backfill runs its closure in plan order through the standard run path; it changes
      // no model definition, so the applied state is left as it was.
      const window = backfillWindow(plan.payload)
      record = yield* runner.run(project, {
        projectRoot,
        models: plan.payload.models,
        trigger: `backfill:${plan.plan_id}`,
        planId: plan.plan_id,
        ...(window === undefined ? {} : { partition: window })
      })
    } else {
      // (4) Execution through the standard run path.
      record = yield* runner.run(project, { projectRoot, models: plan.payload.models, trigger: `apply:${plan.plan_id}`, planId: plan.plan_id })
      const applied = yield* AppliedState
      const built = record.models.filter((m) => m.status === "success").flatMap((m) => {
        const files = admitted.current.get(m.model_name)
        return files === undefined ? [] : [{ model: m.model_name, fingerprint: fingerprintOf(files), files }]
      })
      yield* applied.record(plan.plan_id, built, plan.payload.changes.filter((c) => c.after === null).map((c) => c.model))
    }

    // (5) Post-apply verification feeds the autonomy budget of the rules that allowed it.
    const verifications = yield* verify(admitted, record, actor)
    const freshness = yield* freshnessAfterRun(project, record)
    return {
      command: "apply" as const,
      plan_id: plan.plan_id,
      kind: plan.kind,
      principal: admitted.principal,
      invoker: actor.class,
      policy: admitted.evaluated === undefined ? ("not_configured" as const) : ("evaluated" as const),
      evaluations: [...admitted.evaluations],
      ...(admitted.marker === undefined ? {} : { reviewed_by: admitted.marker.approver }),
      run: withFreshness(runOutput(record), freshness),
      verifications: [...verifications]
    }
  })
