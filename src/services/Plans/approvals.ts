import { Effect, Option } from "effect"
import type { Approver, ReviewMarker } from "../../schemas/plans"
import { Ledger, type LedgerUnavailable, type SealedRow } from "../Ledger/Ledger"
import type { ActingPrincipal } from "../Principal/Principal"
import { type InvalidMarker, MarkerUnrecorded } from "./errors"
import { approvalRow } from "./ledgerRows"
import { PlanStore } from "./PlanStore"

/**
 * decisions.md 34: an approval is a ledger row written by a human's `review --approve`; the marker
 * names it (seq and hash). A marker approves only with that row, in a chain that verifies.
 */

/** How an acting principal is shown wherever an approver is: `class(id)`. */
export const principalLabel = (cls: string, id: string | null) => `${cls}(${id ?? "unrecorded"})`

/** Appends the approval row (before the marker is written: a marker without its row approves nothing). */
export const recordApproval = (input: { readonly actor: ActingPrincipal; readonly planId: string; readonly approver: string; readonly reviewedAt: string }) =>
  Effect.flatMap(Ledger, (ledger) => ledger.appendSealed(approvalRow(input)))

/** The marker's approval as the ledger holds it: the approver shown is the row's principal. */
export interface RecordedApproval {
  readonly marker: ReviewMarker
  readonly approver: Approver
  readonly sealed: SealedRow
}

/**
 * Checks that `marker` names an approval row of this plan by a human, with the hash the marker
 * records, in a chain that verifies from it to the head, and agreeing with the marker's approver
 * and time. Anything else is `marker-unrecorded`, saying which.
 */
export const recordedApproval = (
  planId: string,
  path: string,
  marker: ReviewMarker
): Effect.Effect<RecordedApproval, MarkerUnrecorded | LedgerUnavailable, Ledger> =>
  Effect.gen(function* () {
    const unrecorded = (detail: string) => new MarkerUnrecorded({ planId, path, detail })
    const ref = marker.approval_row
    if (ref === undefined) return yield* unrecorded("the marker names no approval row")
    const found = yield* Effect.flatMap(Ledger, (ledger) => ledger.chainedAt(ref.seq))
    if (Option.isNone(found)) return yield* unrecorded(`the ledger has no row ${ref.seq}`)
    const { row, row_hash, chained } = found.value
    if (row_hash !== ref.hash) return yield* unrecorded(`ledger row ${ref.seq} has another hash than the marker names`)
    if (!chained) return yield* unrecorded(`the ledger chain does not verify from row ${ref.seq} (pcli audit --verify)`)
    if (row.kind !== "approval" || row.plan_id !== planId) return yield* unrecorded(`ledger row ${ref.seq} is not an approval of this plan`)
    if (row.principal !== "human") return yield* unrecorded(`ledger row ${ref.seq} was not written by a human`)
    const expected = approvalRow({ actor: { class: "human", id: "", source: "default" }, planId, approver: marker.approver.email, reviewedAt: marker.reviewed_at })
    if (row.reason !== expected.reason) return yield* unrecorded(`the marker's approver or time differ from ledger row ${ref.seq}`)
    const approver: Approver = { ...marker.approver, principal: principalLabel(row.principal, row.principal_id) }
    return { marker: { ...marker, approver }, approver, sealed: { row, seq: ref.seq, row_hash } }
  })

/** What `review --status` and the queue see of a marker: its state, with an unrecorded one told apart. */
export type ReviewState =
  | { readonly _tag: "Absent"; readonly path: string }
  | { readonly _tag: "Invalid"; readonly path: string; readonly error: InvalidMarker }
  | { readonly _tag: "Unrecorded"; readonly path: string; readonly error: MarkerUnrecorded }
  | { readonly _tag: "Approved"; readonly path: string; readonly approval: RecordedApproval }

export const reviewState = (planId: string): Effect.Effect<ReviewState, LedgerUnavailable, PlanStore | Ledger> =>
  Effect.gen(function* () {
    const state = yield* Effect.flatMap(PlanStore, (store) => store.marker(planId))
    if (state._tag !== "Approved") return state
    const recorded = yield* Effect.either(recordedApproval(planId, state.path, state.marker))
    if (recorded._tag === "Right") return { _tag: "Approved" as const, path: state.path, approval: recorded.right }
    if (recorded.left._tag === "MarkerUnrecorded") return { _tag: "Unrecorded" as const, path: state.path, error: recorded.left }
    return yield* Effect.fail(recorded.left)
  })
