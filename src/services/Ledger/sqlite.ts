import { SqlClient, type Statement } from "@effect/sql"
import { Chunk, Clock, Effect, Layer, Option, Schedule, Stream } from "effect"
import {
  Ledger,
  type LedgerFilter,
  type LedgerKind,
  type LedgerRow,
  LedgerUnavailable,
  type NewLedgerRow,
  type PolicyEffect,
  type PrincipalClass,
  type PrincipalIdSource
} from "./Ledger"

interface StoredRow {
  readonly seq: number
  readonly decision_ref: string
  readonly kind: string
  readonly timestamp: string
  readonly principal: string
  readonly principal_id: string | null
  readonly principal_id_source: string | null
  readonly capability: string | null
  readonly model: string | null
  readonly effect: string | null
  readonly rule_id: number | null
  readonly plan_id: string | null
  readonly reason: string | null
}

const toRow = (r: StoredRow): LedgerRow => ({
  decision_ref: r.decision_ref,
  kind: r.kind as LedgerKind,
  timestamp: r.timestamp,
  principal: r.principal as PrincipalClass,
  principal_id: r.principal_id,
  principal_id_source: r.principal_id_source as PrincipalIdSource | null,
  principal_id_verified: false,
  capability: r.capability,
  model: r.model,
  effect: r.effect as PolicyEffect | null,
  rule_id: r.rule_id,
  plan_id: r.plan_id,
  reason: r.reason
})

const PAGE = 1000

const unavailable = (e: { readonly message: string; readonly cause?: unknown }) =>
  new LedgerUnavailable({ detail: String((e.cause as Error | undefined)?.message ?? e.message) })

/**
 * Another process committed while this append's deferred transaction read: SQLite answers
 * SQLITE_BUSY at once (waiting cannot help a stale snapshot), so the whole append is retried.
 */
const isBusy = (e: { readonly cause?: unknown }) => /SQLITE_BUSY|database is locked/.test(String((e.cause as { code?: string; message?: string } | undefined)?.code ?? "") + String((e.cause as Error | undefined)?.message ?? ""))
const busyRetry = Schedule.exponential("5 millis").pipe(Schedule.jittered, Schedule.intersect(Schedule.recurs(20)))

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const append = (row: NewLedgerRow) =>
    Effect.gen(function* () {
      const timestamp = new Date(yield* Clock.currentTimeMillis).toISOString()
      const base = `${timestamp}|${row.plan_id ?? ""}|${row.model ?? ""}`
      return yield* sql.withTransaction(
        Effect.gen(function* () {
          // The reference key is "<ts>|<plan>|<model>"; a same-millisecond twin gets a suffix, never overwrites.
          const twins = yield* sql<{ n: number }>`SELECT count(*) AS n FROM ledger WHERE decision_ref = ${base} OR decision_ref LIKE ${base + "|#%"}`
          const n = twins[0]?.n ?? 0
          const decision_ref = n === 0 ? base : `${base}|#${n + 1}`
          const stored: LedgerRow = { ...row, decision_ref, timestamp, principal_id_verified: false }
          yield* sql`INSERT INTO ledger ${sql.insert({
            decision_ref,
            kind: row.kind,
            timestamp,
            principal: row.principal,
            principal_id: row.principal_id,
            principal_id_source: row.principal_id_source,
            capability: row.capability,
            model: row.model,
            effect: row.effect,
            rule_id: row.rule_id,
            plan_id: row.plan_id,
            reason: row.reason
          })}`
          return stored
        })
      )
    }).pipe(Effect.retry({ while: isBusy, schedule: busyRetry }), Effect.mapError(unavailable))

  const page = (filter: LedgerFilter, after: number) => {
    const conditions: Array<Statement.Fragment> = [sql`seq > ${after}`]
    if (filter.since !== undefined) conditions.push(sql`timestamp >= ${filter.since.toISOString()}`)
    if (filter.until !== undefined) conditions.push(sql`timestamp < ${filter.until.toISOString()}`)
    if (filter.principalId === null) conditions.push(sql`principal_id IS NULL`)
    else if (filter.principalId !== undefined) conditions.push(sql`principal_id = ${filter.principalId}`)
    if (filter.models !== undefined) conditions.push(sql.in("model", filter.models))
    if (filter.kinds !== undefined) conditions.push(sql.in("kind", filter.kinds))
    if (filter.planId !== undefined) conditions.push(sql`plan_id = ${filter.planId}`)
    return sql<StoredRow>`SELECT * FROM ledger WHERE ${sql.and(conditions)} ORDER BY seq LIMIT ${PAGE}`
  }

  const query = (filter: LedgerFilter): Stream.Stream<LedgerRow, LedgerUnavailable> =>
    Stream.paginateChunkEffect(0, (after: number) =>
      page(filter, after).pipe(
        Effect.map((rows) => {
          const last = rows[rows.length - 1]
          return [
            Chunk.fromIterable(rows.map(toRow)),
            rows.length < PAGE || last === undefined ? Option.none<number>() : Option.some(last.seq)
          ] as const
        }),
        Effect.mapError(unavailable)
      )
    )

  return Ledger.of({ append, query })
})

/** The decision ledger on the state store's SQLite. Rows come back in append order. */
export const layer = Layer.effect(Ledger, make)
