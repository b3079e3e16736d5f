// One approver in a compare-and-swap race for a plan's approval (decisions.md 36): the contract test and bench/state run eight.
import { Effect } from "effect"
import { Ledger } from "../../src/services/Ledger/Ledger"
import { approvalRow } from "../../src/services/Plans/ledgerRows"
import { PlanStore } from "../../src/services/Plans/PlanStore"

/** Approver `a` of `planId` (host `host`): its approval row appended, then the marker that names it, as `review --approve` writes them. */
export const approveAs = (planId: string, a: number, host: string) =>
  Effect.gen(function* () {
    const store = yield* PlanStore
    const ledger = yield* Ledger
    return yield* store.approve(
      planId,
      null,
      Effect.gen(function* () {
        const reviewedAt = new Date().toISOString()
        const sealed = yield* ledger.appendSealed(approvalRow({ actor: { class: "human", id: `approver-${a}`, source: "flag" }, planId, approver: `a${a}@example.com`, reviewedAt }))
        const marker = {
          plan_id: planId,
          reviewed_at: reviewedAt,
          base_ref: "applied",
          breaking_change_count: 0,
          approver: { principal: `human(approver-${a})`, email: `a${a}@example.com`, host, source: "local" as const },
          approval_row: { seq: sealed.seq, hash: sealed.row_hash }
        }
        return [marker, sealed.seq] as const
      })
    )
  })
