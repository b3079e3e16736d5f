import { Effect, Either } from "effect"
import type { PlanListItem, PlanListOutput } from "../schemas/planListOutput"
import { reviewState } from "../services/Plans/approvals"
import { PlanStore } from "../services/Plans/PlanStore"
import { issuingRecorded, originNotes, recordedOrigins, withOrigin } from "../services/Plans/recordedOrigin"

const REVIEW = { Absent: "pending", Invalid: "invalid", Unrecorded: "unrecorded", Approved: "approved" } as const

/** `pcli review --list`: every plan in the store with its review state, newest first; read-only. */
export const planList = Effect.gen(function* () {
  const store = yield* PlanStore
  const listed = yield* store.list
  const plans = listed.flatMap((e) => (Either.isRight(e) ? [e.right] : []))
  // Each plan's author and age are its ledger record's (one read for all), the file's only when the ledger has none.
  const origins = yield* recordedOrigins(plans)
  const notes = [
    ...listed.flatMap((e) => (Either.isLeft(e) ? [`not listed (${e.left.code}): ${e.left.message}`] : [])),
    ...originNotes(plans, origins, yield* issuingRecorded)
  ]
  const items = yield* Effect.forEach(plans.map((p) => withOrigin(p, origins.get(p.plan_id))), (plan) =>
    Effect.map(reviewState(plan.plan_id), (state): PlanListItem => ({
      plan_id: plan.plan_id,
      kind: plan.kind,
      created_at: plan.created_at,
      principal: plan.principal,
      models: [...plan.payload.models],
      review: REVIEW[state._tag],
      ...(state._tag === "Approved" ? { approver: state.approval.approver, reviewed_at: state.approval.marker.reviewed_at } : {})
    }))
  )
  // Newest first; the id breaks ties so the order never depends on the directory's.
  const sorted = [...items].sort((a, b) => (a.created_at === b.created_at ? a.plan_id.localeCompare(b.plan_id) : b.created_at.localeCompare(a.created_at)))
  return { command: "plan_list" as const, count: sorted.length, plans: sorted, ...(notes.length === 0 ? {} : { notes }) } satisfies PlanListOutput
})
