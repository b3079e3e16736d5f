// `pcli review <id> --status` (apart from reviewPlan.ts, which compiles for the queue: status never does).
import { Effect } from "effect"
import { isGatedPlan, type Plan } from "../schemas/plans"
import { type ReviewStatusOutput } from "../schemas/reviewStatusOutput"
import type { Ledger, LedgerUnavailable } from "../services/Ledger/Ledger"
import { breakingFindings } from "../services/Project/breakingFindings"
import type { InvalidMarker, MarkerUnrecorded } from "../services/Plans/errors"
import { reviewState } from "../services/Plans/approvals"
import { PlanStore, type PlanReadError } from "../services/Plans/PlanStore"

/** A plan's breaking findings (a gated plan has none). */
export const breakingCount = (plan: Plan) => (isGatedPlan(plan) ? 0 : breakingFindings(plan.payload.changes).length)

/**
 * `pcli review <id> --status`: read-only; an invalid marker is an error, never "not reviewed", and so
 * is a marker whose approval row the ledger does not hold (`marker-unrecorded`).
 */
export const reviewStatus = (planId: string): Effect.Effect<ReviewStatusOutput, PlanReadError | InvalidMarker | MarkerUnrecorded | LedgerUnavailable, PlanStore | Ledger> =>
  Effect.gen(function* () {
    const store = yield* PlanStore
    const plan = yield* store.read(planId)
    const state = yield* reviewState(planId)
    if (state._tag === "Invalid" || state._tag === "Unrecorded") return yield* state.error
    return {
      command: "review_status" as const,
      plan_id: plan.plan_id,
      kind: plan.kind,
      reviewed: state._tag === "Approved",
      marker_path: state.path,
      ...(state._tag === "Approved" ? { reviewed_at: state.approval.marker.reviewed_at, approver: state.approval.approver } : {}),
      breaking_change_count: breakingCount(plan),
      product_binding: null
    }
  })
