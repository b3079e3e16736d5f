import { Clock, Effect } from "effect"
import { Checkpoints } from "../platform/Checkpoints"
import type { GatedPlan } from "../schemas/plans"
import { PRODUCTION, type SwappedView } from "../services/Runner/environmentRows"
import { RunStore, RunStoreFailed } from "../services/Runner/RunStore"
import { relationName, schemaStatement } from "../services/Runner/virtual"
import { Warehouse, type WarehouseService } from "../services/Warehouse/Warehouse"
import { findBranch } from "./branch"
import { BranchMoved, StateHashMismatch } from "./environmentErrors"
import { projectState, viewSwapFacts } from "./promoteFacts"

const storeFailed = (e: { readonly message: string }) => new RunStoreFailed({ detail: e.message })

const viewsOf = (plan: GatedPlan) => (plan.payload["views"] ?? []) as ReadonlyArray<SwappedView>

/** Is this a promote or a rollback plan (applied by swapping views, not by building)? */
export const isViewSwap = (plan: { readonly kind: string }) => plan.kind === "promote" || plan.kind === "rollback"

/**
 * Before the gate judges a promote: the project is what was approved (`state-hash-mismatch`), the
 * branch still holds what was planned (`branch-moved`, `unknown-branch`); a rollback finds
 * production where it was planned from. Then the policy facts the gate may read instead of a
 * compile (promoteFacts.ts), or undefined.
 */
export const checkViewSwap = (plan: GatedPlan) =>
  Effect.gen(function* () {
    const store = yield* RunStore
    const views = viewsOf(plan)
    let state: { readonly hash: string; readonly substitutes: boolean } | undefined
    if (plan.kind === "promote") {
      state = yield* projectState
      const planned = String(plan.payload["state_hash"] ?? "")
      if (state.hash !== planned) return yield* new StateHashMismatch({ planned, now: state.hash })
      const name = String(plan.payload["branch"] ?? "")
      const branch = yield* findBranch(name)
      if (branch.last_run_id !== plan.payload["branch_run_id"]) return yield* new BranchMoved({ name, model: "(it ran again)" })
      const mine = yield* store.environments.modelsOf(name).pipe(Effect.mapError(storeFailed))
      const moved = views.find((v) => mine.get(v.model_name)?.physical !== v.to?.physical)
      if (moved !== undefined) return yield* new BranchMoved({ name, model: moved.model_name })
    } else {
      const prod = yield* store.environments.modelsOf(PRODUCTION).pipe(Effect.mapError(storeFailed))
      const moved = views.find((v) => (prod.get(v.model_name)?.physical ?? null) !== (v.from?.physical ?? null))
      if (moved !== undefined) return yield* new BranchMoved({ name: PRODUCTION, model: moved.model_name })
    }
    return yield* viewSwapFacts(plan, state)
  })

const swapStatements = (views: ReadonlyArray<SwappedView>, kind: WarehouseService["kind"]) =>
  views.map((v) => {
    const view = relationName(v, kind)
    if (v.to === null) return [`DROP VIEW IF EXISTS ${view}`]
    const dot = v.to.physical.indexOf(".")
    const physical = relationName({ catalog: v.catalog, schema: v.to.physical.slice(0, dot), table: v.to.physical.slice(dot + 1) }, kind)
    return [schemaStatement(v, kind), `CREATE OR REPLACE VIEW ${view} AS SELECT * FROM ${physical}`]
  })

/**
 * Points every production view of the plan at its new table in one warehouse transaction (a
 * remote warehouse, statement by statement), then records the targets and the promotion in the
 * state store. Nothing is built and no row is copied.
 */
export const swapViews = (plan: GatedPlan) =>
  Effect.gen(function* () {
    const views = viewsOf(plan)
    const wh = yield* Warehouse
    const checkpoints = yield* Checkpoints
    const statements = swapStatements(views, wh.kind)
    if (wh.kind === "embedded" && wh.session !== undefined) {
      yield* Effect.scoped(
        Effect.gen(function* () {
          const connection = yield* wh.session!
          // The swap is a few catalog entries in the log; a checkpoint at close would rewrite the whole catalog
          // (every table of every environment: 100-200 ms under load, about a tenth of a promote). The next run checkpoints it.
          yield* connection.execute("PRAGMA disable_checkpoint_on_shutdown")
          yield* connection.execute("BEGIN TRANSACTION")
          for (const [i, group] of statements.entries()) {
            for (const s of group) yield* connection.execute(s)
            // A crash here must leave the old production whole (the transaction never commits).
            yield* checkpoints.after(`promote-view-${i + 1}`)
          }
          yield* connection.execute("COMMIT")
        })
      )
    } else {
      for (const group of statements) for (const s of group) yield* wh.execute(s)
    }
    const store = yield* RunStore
    const at = new Date(yield* Clock.currentTimeMillis).toISOString()
    yield* store.environments
      .inTransaction(
        Effect.gen(function* () {
          for (const v of views) {
            if (v.to === null) yield* store.environments.dropModel(PRODUCTION, v.model_name)
            else yield* store.environments.putModels(PRODUCTION, [{ model_name: v.model_name, ...v.to, updated_at: at }])
          }
          yield* store.environments.handOverBuilds(views)
          yield* store.environments.recordPromotion({ plan_id: plan.plan_id, environment: PRODUCTION, kind: plan.kind as "promote" | "rollback", applied_at: at, views })
        })
      )
      .pipe(Effect.mapError(storeFailed))
    return views
  })
