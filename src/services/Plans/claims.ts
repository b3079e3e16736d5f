import { SqlClient } from "@effect/sql"
import { Clock, Effect, Exit } from "effect"
import { LedgerUnavailable } from "../Ledger/Ledger"
import type { ActingPrincipal } from "../Principal/Principal"
import { stateBackend } from "../StateStore/backend"
import { FreezeChangedDuringApply, PlanAlreadyApplied } from "./errors"

type ClaimRefusal = PlanAlreadyApplied | FreezeChangedDuringApply | LedgerUnavailable
import { planIdOf } from "./ids"

/**
 * decisions.md 34: a plan applies once. The claim is one statement on `plan_applies` (migration 010),
 * taken before anything is built: of two concurrent applies one inserts, the other is refused.
 * A failed apply uses its approval up: only a newer approval (a human's `review --approve` again)
 * retakes the claim, and a plan that needed none may be retried; an applied plan never is.
 */
export interface Claim {
  readonly planId: string
  readonly approvalSeq: number | null
}

type ClaimRow = { readonly status: "applying" | "applied" | "failed"; readonly approval_seq: number | null; readonly claimed_at: string }

const unavailable = (e: { readonly message: string; readonly cause?: unknown }) =>
  new LedgerUnavailable({ detail: `plan claims: ${String((e.cause as Error | undefined)?.message ?? e.message)}` })

/**
 * On PostgreSQL (decision 36) the claim is taken holding the chain's head row, and re-reads the
 * freezes there: a freeze or unfreeze appended after the gate read them (`gateHead`, the head seq
 * then) refuses the claim, so every freeze is strictly before the apply's claim or after it.
 */
const freezesUnchanged = (planId: string, gateHead: number | undefined) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    if (gateHead === undefined || (yield* stateBackend) !== "postgres") return
    yield* sql`SELECT seq FROM ledger_head WHERE id = 1 FOR UPDATE`.pipe(Effect.mapError(unavailable))
    const [later] = yield* sql<{ seq: number }>`SELECT seq FROM ledger WHERE seq > ${gateHead} AND kind IN ('freeze', 'unfreeze') ORDER BY seq LIMIT 1`.pipe(
      Effect.mapError(unavailable)
    )
    if (later !== undefined) return yield* new FreezeChangedDuringApply({ planId, seq: later.seq })
  })

/** Takes the claim on `planId` for this apply, or fails with `plan-already-applied` naming the earlier one. */
export const claimApply = (planId: string, approvalSeq: number | null, actor: ActingPrincipal, gateHead?: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(Effect.zipRight(freezesUnchanged(planId, gateHead), takeClaim(planId, approvalSeq, actor)))).pipe(
    Effect.catchTag("SqlError", (e) => Effect.fail(unavailable(e)))
  )

const takeClaim = (planId: string, approvalSeq: number | null, actor: ActingPrincipal) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const now = new Date(yield* Clock.currentTimeMillis).toISOString()
    // One statement: SQLite's write lock makes the insert-or-retake atomic across processes.
    const taken = yield* sql<{ plan_id: string }>`INSERT INTO plan_applies (plan_id, status, approval_seq, principal, principal_id, claimed_at)
      VALUES (${planId}, 'applying', ${approvalSeq}, ${actor.class}, ${actor.id}, ${now})
      ON CONFLICT (plan_id) DO UPDATE SET status = 'applying', approval_seq = excluded.approval_seq, principal = excluded.principal,
        principal_id = excluded.principal_id, claimed_at = excluded.claimed_at, finished_at = NULL
      WHERE plan_applies.status <> 'applied' AND (
        (excluded.approval_seq IS NULL AND plan_applies.status = 'failed')
        OR (excluded.approval_seq IS NOT NULL AND (plan_applies.approval_seq IS NULL OR excluded.approval_seq > plan_applies.approval_seq)))
      RETURNING plan_id`.pipe(Effect.mapError(unavailable))
    if (taken.length > 0) return { planId, approvalSeq } satisfies Claim
    const [held] = yield* sql<ClaimRow>`SELECT status, approval_seq, claimed_at FROM plan_applies WHERE plan_id = ${planId}`.pipe(Effect.mapError(unavailable))
    return yield* new PlanAlreadyApplied({
      planId,
      status: held?.status ?? "applying",
      claimedAt: held?.claimed_at ?? now,
      approvalSeq: held?.approval_seq === undefined || held.approval_seq === null ? null : Number(held.approval_seq)
    })
  })

/**
 * A plan's id is its content, and an applied plan never applies again: a plan with the content of
 * an applied one (the same backfill window again, a change re-made after a revert) is issued
 * afresh, its payload naming the applied plan, so it gets its own id, review and apply.
 */
export const issuedAfterApplied = <P extends object>(kind: string, payload: P) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    let issued: P & { readonly reissue_of?: string } = payload
    for (;;) {
      const id = planIdOf(kind, issued)
      const [row] = yield* sql<{ status: string }>`SELECT status FROM plan_applies WHERE plan_id = ${id}`.pipe(Effect.mapError(unavailable))
      if (row?.status !== "applied") return issued
      issued = { ...payload, reissue_of: id }
    }
  })

/** Records how the claimed apply ended. */
export const settleClaim = (claim: Claim, applied: boolean) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const now = new Date(yield* Clock.currentTimeMillis).toISOString()
    yield* sql`UPDATE plan_applies SET status = ${applied ? "applied" : "failed"}, finished_at = ${now} WHERE plan_id = ${claim.planId}`.pipe(
      Effect.mapError(unavailable)
    )
  })

/** Claims the plan unless a gate already refused it: the refusal to record (the gate's, or the claim's) and the claim taken. */
export const claimUnlessRefused = <R extends { readonly code: string; readonly message: string }>(
  planId: string,
  refusal: R | undefined,
  marker: { readonly approval_row?: { readonly seq: number } | undefined } | undefined,
  actor: ActingPrincipal,
  gateHead?: number
) =>
  refusal !== undefined
    ? Effect.succeed({ refusal: refusal as R | ClaimRefusal | undefined, claim: undefined as Claim | undefined })
    : Effect.match(claimApply(planId, marker?.approval_row?.seq ?? null, actor, gateHead), {
        onFailure: (error) => ({ refusal: error as R | ClaimRefusal | undefined, claim: undefined as Claim | undefined }),
        onSuccess: (claim) => ({ refusal: undefined as R | ClaimRefusal | undefined, claim: claim as Claim | undefined })
      })

/** A run that did not fully succeed, or a gc/restore that refused an item, is a failed apply (its approval is used up; see claimApply). */
const fullySucceeded = (value: unknown) => {
  const out = value as { readonly run?: { readonly status?: string }; readonly refused_count?: number }
  return (out.run?.status === undefined || out.run.status === "success") && (out.refused_count ?? 0) === 0
}

/** Settles `claim` when the apply ends, however it ends (a failure to record it is not the apply's failure). */
export const settledBy =
  (claim: Claim | undefined) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | SqlClient.SqlClient> =>
    claim === undefined
      ? self
      : Effect.onExit(self, (exit) => Effect.ignore(settleClaim(claim, Exit.isSuccess(exit) && fullySucceeded(exit.value))))

/** `settleClaim` as a failure, when there is a claim. */
export const releaseFailed = (claim: Claim | undefined) => (claim === undefined ? Effect.void : Effect.ignore(settleClaim(claim, false)))
