import type { FileSystem, Path } from "@effect/platform"
import { Effect } from "effect"
import type { PromotePlanOutput } from "../schemas/environment"
import type { GatedPlan } from "../schemas/plans"
import { Ledger } from "../services/Ledger/Ledger"
import { issuedAfterApplied } from "../services/Plans/claims"
import { fingerprintsOf } from "../services/Plans/derive"
import { NothingToPlan } from "../services/Plans/errors"
import { evaluateItems, gateItems, type ModelFactsSource } from "../services/Plans/gate"
import { appendRows, evaluationRow, plannedReason, refusalRow } from "../services/Plans/ledgerRows"
import { PlanStore } from "../services/Plans/PlanStore"
import { readWorkingTree } from "../services/Plans/revisions"
import { builtContext } from "../services/Plans/scopeChange"
import { Principal } from "../services/Principal/Principal"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { type EnvironmentModel, PRODUCTION, type PromotionRow, type SwappedView, type ViewTarget } from "../services/Runner/environmentRows"
import { RunStore, RunStoreFailed } from "../services/Runner/RunStore"
import { compiledProject } from "./compile"
import { findBranch } from "./branch"
import { BranchNeverRun, NothingToRollBack } from "./environmentErrors"
import { factsRecord, projectState, viewSwapFacts } from "./promoteFacts"

const storeFailed = (e: { readonly message: string }) => new RunStoreFailed({ detail: e.message })

/** Records a refusal row for a promote or rollback the gate never reached (policy is about to be consulted). */
const refusedBefore = (planId: string) => (error: { readonly code: string; readonly message: string }) =>
  Effect.flatMap(Principal, (actor) =>
    Effect.flatMap(Ledger, (ledger) => ledger.append(refusalRow({ actor, principal: actor.class, capability: "promote", planId, error })))
  ).pipe(Effect.ignore)

/**
 * Writes the plan, then judges it as apply will (capability `promote` per model, as proposed and as last
 * built) and records one row per model, `…; planned as <kind>`: the ledger's record of who issued it and
 * when, which the review queue shows instead of the file's claims (decision 33). No `[policy]`: no rows.
 */
const writePlan = <E, R>(
  kind: "promote" | "rollback",
  payload: Record<string, unknown> & { readonly models: ReadonlyArray<string> },
  facts: (plan: GatedPlan) => Effect.Effect<ModelFactsSource, E, R>
) =>
  Effect.gen(function* () {
    const { modelsDir } = yield* ProjectContext
    const working = yield* readWorkingTree(modelsDir, new Set(payload.models))
    const issued = yield* issuedAfterApplied(kind, { ...payload, fingerprints: fingerprintsOf(working, payload.models) })
    const actor = yield* Principal
    const store = yield* PlanStore
    const written = yield* store.write({ kind, payload: issued, principal: { class: actor.class, id: actor.id, source: actor.source } })
    const plan = written.plan as GatedPlan
    const evaluated = yield* evaluateItems(actor.class, gateItems(plan, yield* facts(plan), yield* builtContext))
    if (evaluated !== undefined) {
      yield* appendRows(
        yield* Ledger,
        evaluated.map(({ item, verdict }) =>
          evaluationRow({ actor, principal: actor.class, model: item.model, capability: item.capability, effect: verdict.effect, ruleId: verdict.static.matched_rule, planId: plan.plan_id, reason: plannedReason(verdict.reason, kind) })
        )
      )
    }
    return plan.plan_id
  })

const targetOf = (row: EnvironmentModel | undefined): ViewTarget | null =>
  row === undefined ? null : { physical: row.physical, fingerprint: row.fingerprint, table_key: row.table_key }

const viewOf = (model: string, target: { catalog: string; schema: string; table: string }, from: EnvironmentModel | undefined, to: EnvironmentModel | undefined): SwappedView => ({
  model_name: model,
  catalog: target.catalog,
  schema: target.schema,
  table: target.table,
  from: targetOf(from),
  to: targetOf(to)
})

/** `pcli plan --promote <branch>`: a `promote` plan naming every production view to swap to the branch's table. */
export const planPromote = (name: string) =>
  Effect.gen(function* () {
    const branch = yield* findBranch(name)
    if (branch.last_run_id === null) return yield* new BranchNeverRun({ name })
    const store = yield* RunStore
    const project = yield* compiledProject
    const mine = yield* store.environments.modelsOf(name).pipe(Effect.mapError(storeFailed))
    const prod = yield* store.environments.modelsOf(PRODUCTION).pipe(Effect.mapError(storeFailed))
    const views = project.order.flatMap((model) => {
      const to = mine.get(model)
      const from = prod.get(model)
      return to === undefined || to.physical === from?.physical ? [] : [viewOf(model, project.models.get(model)!.target, from, to)]
    })
    if (views.length === 0) return yield* new NothingToPlan({ base: "production: the branch's views already match it" })
    const state = yield* projectState
    const stateHash = state.hash
    const models = views.map((v) => v.model_name).sort()
    // The policy facts the apply's gate reads (promoteFacts.ts); none where a model file substitutes `${…}`.
    const facts = state.substitutes ? {} : { facts: factsRecord(project, models) }
    const planId = yield* writePlan("promote", { branch: name, base: branch.base, branch_run_id: branch.last_run_id, state_hash: stateHash, views, models, ...facts }, () => Effect.succeed(project))
    const out: PromotePlanOutput = { command: "plan_promote", plan_id: planId, kind: "promote", branch: name, state_hash: stateHash, views }
    return out
  })

/**
 * The applied promotes that no rollback has undone since, oldest first (decision 37): a rollback
 * undoes its promote and every later one; with --to it keeps that promote and undoes the later ones.
 */
const standingPromotes = (promotions: ReadonlyArray<PromotionRow>) =>
  Effect.gen(function* () {
    const plans = yield* PlanStore
    let standing: ReadonlyArray<PromotionRow> = []
    for (const row of promotions) {
      if (row.kind === "promote") {
        standing = [...standing, row]
        continue
      }
      const rollback = (yield* plans.read(row.plan_id)).payload as Readonly<Record<string, unknown>>
      const undone = standing.findIndex((p) => p.plan_id === rollback["undoes"])
      if (undone >= 0) standing = standing.slice(0, rollback["restores"] === "after" ? undone + 1 : undone)
    }
    return standing
  })

/**
 * `pcli rollback [--to <promote-plan>]`: a `rollback` plan that puts production's views back where
 * the last promote not yet rolled back found them (or, with --to, where that promote left them).
 * Run again, it goes one promote further back; with none left it is refused (`no-previous-promote`).
 */
export const planRollback = (to: string | undefined) =>
  Effect.gen(function* () {
    const store = yield* RunStore
    const promotions = yield* store.environments.promotions.pipe(Effect.mapError(storeFailed))
    const standing = to === undefined ? yield* standingPromotes(promotions) : []
    const chosen = to === undefined ? standing[standing.length - 1] : promotions.find((p) => p.plan_id === to && p.kind === "promote")
    if (chosen === undefined) {
      const detail =
        to !== undefined
          ? `plan ${to} is not an applied promote`
          : promotions.length === 0
            ? "no promote has been applied: nothing to roll back"
            : "every applied promote has been rolled back: nothing to roll back"
      const error = new NothingToRollBack({ detail })
      yield* refusedBefore(to ?? "rollback")(error)
      return yield* error
    }
    const prod = yield* store.environments.modelsOf(PRODUCTION).pipe(Effect.mapError(storeFailed))
    // From production as it is now, to what the chosen promote found (or, with --to, left).
    const views = chosen.views.map((v): SwappedView => ({ ...v, from: targetOf(prod.get(v.model_name)), to: to === undefined ? v.from : v.to }))
    const models = views.map((v) => v.model_name).sort()
    // Judged on the facts its apply reads: the undone promote's while the project is unchanged, else a compile.
    const facts = (plan: GatedPlan) => Effect.flatMap(viewSwapFacts(plan, undefined), (carried) => (carried === undefined ? compiledProject : Effect.succeed(carried)))
    const planId = yield* writePlan("rollback", { undoes: chosen.plan_id, restores: to === undefined ? "before" : "after", views, models }, facts)
    return planId
  })

export type PromotePlanRequirements = FileSystem.FileSystem | Path.Path
