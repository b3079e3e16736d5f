import type { SqlClient, SqlError } from "@effect/sql"
import { Effect, Either } from "effect"
import type { ReviewMarker } from "../../schemas/plans"
import { type Plan } from "../../schemas/plans"
import { ApprovalTaken, PlanNotFound, PlanStoreIo, ReviewMarkerWriteFailed } from "./errors"
import { isPlanId } from "./ids"
import { encodeMarker, markerState } from "./markers"
import { parsePlan, type PlanReadError, type PlanStoreService } from "./PlanStore"

/**
 * Plans and review markers held in a PostgreSQL store (decision 36), so a plan made on one machine
 * is reviewed on a second and applied on a third. The store is the authority: reads come from its
 * `plans` and `plan_markers` tables, checked exactly as a file is; the files under `.pcli/plans`
 * are written too, as a local export, and never read.
 */
const isSqlError = (e: unknown): e is SqlError.SqlError => (e as { _tag?: unknown } | null)?._tag === "SqlError"

export const storedPlans = (sql: SqlClient.SqlClient, files: PlanStoreService): PlanStoreService => {
  const io = (path: string) => (e: SqlError.SqlError) => new PlanStoreIo({ path, detail: String((e.cause as Error | undefined)?.message ?? e.message) })

  const read = (planId: string): Effect.Effect<Plan, PlanReadError> =>
    Effect.gen(function* () {
      const path = files.planPath(planId)
      if (!isPlanId(planId)) return yield* new PlanNotFound({ planId, path })
      const [row] = yield* sql<{ body: string }>`SELECT body FROM plans WHERE plan_id = ${planId}`.pipe(Effect.mapError(io(path)))
      if (row === undefined) return yield* new PlanNotFound({ planId, path })
      return yield* parsePlan(planId, path, row.body)
    })

  const write: PlanStoreService["write"] = (plan) =>
    Effect.gen(function* () {
      const exported = yield* files.write(plan)
      const body = `${JSON.stringify(exported.plan, null, 2)}\n`
      const inserted = yield* sql<{ plan_id: string }>`INSERT INTO plans (plan_id, kind, created_at, body)
        VALUES (${exported.plan.plan_id}, ${exported.plan.kind}, ${exported.plan.created_at}, ${body})
        ON CONFLICT (plan_id) DO NOTHING RETURNING plan_id`.pipe(Effect.mapError(io(exported.path)))
      if (inserted.length > 0) return exported
      // Planned before (here or on another machine): the store's copy is the plan.
      const stored = yield* Effect.either(read(exported.plan.plan_id))
      if (Either.isLeft(stored)) return yield* new PlanStoreIo({ path: exported.path, detail: stored.left.message })
      return { plan: stored.right, path: exported.path, written: false }
    })

  const list = Effect.gen(function* () {
    const rows = yield* sql<{ plan_id: string; body: string }>`SELECT plan_id, body FROM plans ORDER BY plan_id`.pipe(Effect.mapError(io(files.dir)))
    return rows.map((r): Either.Either<Plan, PlanReadError> => parsePlan(r.plan_id, files.planPath(r.plan_id), r.body))
  })

  const marker: PlanStoreService["marker"] = (planId) => {
    const path = files.markerPath(planId)
    return sql<{ body: string }>`SELECT body FROM plan_markers WHERE plan_id = ${planId}`.pipe(
      Effect.map(([row]) => markerState(planId, path, Either.right(row === undefined ? { _tag: "Missing" } : { _tag: "Text", text: row.body }))),
      Effect.catchAll((e) => Effect.succeed(markerState(planId, path, Either.left({ detail: String((e.cause as Error | undefined)?.message ?? e.message) }))))
    )
  }

  const storeMarker = (body: ReviewMarker) => {
    const path = files.markerPath(body.plan_id)
    return sql`INSERT INTO plan_markers (plan_id, approval_seq, written_at, body)
        VALUES (${body.plan_id}, ${body.approval_row?.seq ?? null}, ${body.reviewed_at}, ${encodeMarker(body)})
        ON CONFLICT (plan_id) DO UPDATE SET approval_seq = excluded.approval_seq, written_at = excluded.written_at, body = excluded.body`.pipe(
      Effect.mapError((e) => new ReviewMarkerWriteFailed({ path, detail: String((e.cause as Error | undefined)?.message ?? e.message) }))
    )
  }

  const writeMarker = (body: ReviewMarker) => {
    const path = files.markerPath(body.plan_id)
    return Effect.gen(function* () {
      yield* storeMarker(body)
      // The local export: the store already holds the marker, so a failed export is not a failed approval.
      yield* Effect.ignore(files.writeMarker(body))
      return path
    })
  }

  /**
   * Compare-and-swap (decision 36): under the chain's head-row lock, the marker must still be the one
   * this approver saw (`seen`: its approval seq, null for none); then the approval row is appended
   * and the marker stored in the same transaction. Of N concurrent approvers exactly one wins; the
   * others fail with `approval-taken`, naming the winner, and write nothing.
   */
  const approve: PlanStoreService["approve"] = (planId, seen, record) => {
    const path = files.markerPath(planId)
    const failed = (e: SqlError.SqlError) => new ReviewMarkerWriteFailed({ path, detail: String((e.cause as Error | undefined)?.message ?? e.message) })
    return sql
      .withTransaction(
        Effect.gen(function* () {
          yield* sql`SELECT seq FROM ledger_head WHERE id = 1 FOR UPDATE`.pipe(Effect.mapError(failed))
          const [current] = yield* sql<{ approval_seq: number | null; body: string }>`SELECT approval_seq, body FROM plan_markers WHERE plan_id = ${planId}`.pipe(
            Effect.mapError(failed)
          )
          if (current !== undefined && current.approval_seq !== seen) {
            const state = markerState(planId, path, Either.right({ _tag: "Text", text: current.body }))
            const winner = state._tag === "Approved" ? `${state.marker.approver.principal} (${state.marker.approver.email})` : "another approver"
            return yield* new ApprovalTaken({ planId, winner, seq: current.approval_seq })
          }
          const [body, extra] = yield* record
          yield* storeMarker(body)
          return [body, extra] as const
        })
      )
      .pipe(
        Effect.mapError((e) => (isSqlError(e) ? failed(e) : (e as Exclude<typeof e, SqlError.SqlError>))),
        Effect.tap(([body]) => Effect.ignore(files.writeMarker(body))),
        Effect.map(([, extra]) => [path, extra] as const)
      )
  }

  return { ...files, read, write, list, marker, writeMarker, approve }
}

