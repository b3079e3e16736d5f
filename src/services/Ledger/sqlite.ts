import { SqlClient, type Statement } from "@effect/sql"
import { Chunk, Clock, Effect, Either, Layer, Option, Schedule, Stream } from "effect"
import type { LedgerKind, LedgerRow } from "../../schemas/ledger"
import { GENESIS_HASH, rowHash } from "./chain"
import { stateBackend } from "../StateStore/backend"
import { StateStore } from "../StateStore/StateStore"
import { makeListCache } from "./listCache"
import { appendPg, storedRow, twinCount } from "./pgAppend"
import { type ChainedRow, type EvaluationGroup, Ledger, type SealedRow, type OutcomeTally, type LedgerFilter, LedgerUnavailable, type NewLedgerRow } from "./Ledger"

import { decodeStored, STORED_COLUMNS } from "./rows"

const PAGE = 1000

const unavailable = (e: { readonly message: string; readonly cause?: unknown }) =>
  new LedgerUnavailable({ detail: String((e.cause as Error | undefined)?.message ?? e.message) })

/**
 * Another process committed while this append's deferred transaction read: SQLite answers
 * SQLITE_BUSY at once (waiting cannot help a stale snapshot), so the whole append is retried.
 */
const isBusy = (e: { readonly cause?: unknown }) =>
  /SQLITE_BUSY|database is locked/.test(
    String((e.cause as { code?: string } | undefined)?.code ?? "") + String((e.cause as Error | undefined)?.message ?? "")
  )
const busyRetry = Schedule.exponential("5 millis").pipe(Schedule.jittered, Schedule.intersect(Schedule.recurs(20)))

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const head = sql<{ row_hash: string | null }>`SELECT row_hash FROM ledger ORDER BY seq DESC LIMIT 1`.pipe(
    Effect.map((rows) => rows[0]?.row_hash ?? GENESIS_HASH)
  )

  /** Inserts one row stamped `timestamp`, chained to the current head; must run inside the caller's transaction. */
  const insert = (row: NewLedgerRow, timestamp: string) =>
    Effect.gen(function* () {
      const base = `${timestamp}|${row.plan_id ?? ""}|${row.model ?? ""}`
      const n = yield* twinCount(sql, base)
      const stored = storedRow(row, n === 0 ? base : `${base}|#${n + 1}`, timestamp)
      const row_hash = rowHash(yield* head, stored)
      const [inserted] = yield* sql<{ seq: number }>`INSERT INTO ledger ${sql.insert({ ...stored, principal_id_verified: stored.principal_id_verified ? 1 : 0, row_hash })} RETURNING seq`
      return { row: stored, seq: Number(inserted?.seq), row_hash } satisfies SealedRow
    })

  const backend = yield* stateBackend
  const store = yield* Effect.serviceOption(StateStore)
  const listCache = makeListCache(sql, backend)
  // The chain walk loads when a command checks the chain (audit --verify, an apply's approval): no other command needs it.
  const verifier = Effect.promise(() => import("./verify")).pipe(
    Effect.flatMap(({ chainVerifier }) => chainVerifier),
    Effect.provideService(SqlClient.SqlClient, sql),
    (verifier) => (Option.isSome(store) ? Effect.provideService(verifier, StateStore, store.value) : verifier)
  )

  const appendSqlite = (rows: ReadonlyArray<NewLedgerRow>) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => sql.withTransaction(Effect.forEach(rows, (row) => insert(row, new Date(now).toISOString()))))

  const appendSealedAll = (rows: ReadonlyArray<NewLedgerRow>) =>
    Effect.gen(function* () {
      yield* listCache.noteWrite
      return yield* (backend === "postgres" ? appendPg(sql, rows) : appendSqlite(rows)).pipe(Effect.ensuring(listCache.noteWrite))
    }).pipe(Effect.retry({ while: isBusy, schedule: busyRetry }), Effect.mapError(unavailable))

  const appendAll = (rows: ReadonlyArray<NewLedgerRow>) => Effect.map(appendSealedAll(rows), (sealed) => sealed.map((s) => s.row))
  const append = (row: NewLedgerRow) => Effect.map(appendAll([row]), (stored) => stored[0]!)
  const appendSealed = (row: NewLedgerRow) => Effect.map(appendSealedAll([row]), (sealed) => sealed[0]!)

  const where = (filter: LedgerFilter) => {
    const conditions: Array<Statement.Fragment> = []
    if (filter.since !== undefined) conditions.push(sql`timestamp >= ${filter.since.toISOString()}`)
    if (filter.until !== undefined) conditions.push(sql`timestamp < ${filter.until.toISOString()}`)
    if (filter.principalId === null) conditions.push(sql`principal_id IS NULL`)
    else if (filter.principalId !== undefined) conditions.push(sql`principal_id = ${filter.principalId}`)
    if (filter.models !== undefined) conditions.push(sql.in("model", filter.models))
    if (filter.kinds !== undefined) conditions.push(sql.in("kind", filter.kinds))
    if (filter.effects !== undefined) conditions.push(sql.in("effect", filter.effects))
    if (filter.planId !== undefined) conditions.push(sql`plan_id = ${filter.planId}`)
    if (filter.planIds !== undefined) conditions.push(filter.planIds.length === 0 ? sql`1 = 0` : sql.in("plan_id", filter.planIds))
    return conditions
  }

  // Value arrays, not objects: a row costs half as much to read (seq first, then the stored columns).
  const PAGE_COLUMNS = sql.literal(["seq", ...STORED_COLUMNS].join(", "))
  const page = (filter: LedgerFilter, after: number) =>
    sql`SELECT ${PAGE_COLUMNS} FROM ledger WHERE ${sql.and([sql`seq > ${after}`, ...where(filter)])} ORDER BY seq LIMIT ${PAGE}`.values

  /** The row at `seq` with its stored hash, and whether the chain verifies from it to the head (decisions.md 34). */
  const chainedAt = (seq: number) =>
    Effect.gen(function* () {
      const [values] = yield* Effect.mapError(sql`SELECT ${PAGE_COLUMNS}, row_hash FROM ledger WHERE seq = ${seq}`.values, unavailable)
      if (values === undefined) return Option.none<ChainedRow>()
      const decoded = decodeStored(values.slice(0, -1), 1)
      if (Either.isLeft(decoded)) return yield* new LedgerUnavailable({ detail: `ledger row ${seq} is malformed` })
      const chained = yield* Effect.flatMap(verifier, (v) => v.chainsFrom(seq))
      return Option.some<ChainedRow>({ row: decoded.right, seq, row_hash: String(values[values.length - 1]), chained })
    })

  const count = (filter: LedgerFilter) => {
    const conditions = where(filter)
    return sql<{ n: number }>`SELECT count(*) AS n FROM ledger ${conditions.length === 0 ? sql`` : sql`WHERE ${sql.and(conditions)}`}`.pipe(
      Effect.map((rows) => Number(rows[0]?.n ?? 0)),
      Effect.mapError(unavailable)
    )
  }

  const GROUP_COLUMNS = { principal: sql`principal, principal_id`, rule: sql`rule_id`, scope: sql`model` } as const
  /**
   * One grouped read per kind on the covering `ledger_reports` index (migration 009): with the kind
   * fixed the index is already in group order, so SQLite streams it without sorting a million rows;
   * the few per-kind groups are then summed by the outer GROUP BY.
   */
  const outcomes = (by: "principal" | "rule" | "scope", kinds: ReadonlyArray<LedgerKind>, since: Date | undefined) => {
    const perKind = kinds.map(
      (kind) => sql`SELECT min(principal) AS principal, min(principal_id) AS principal_id, min(rule_id) AS rule_id, min(model) AS model,
        count(*) AS total,
        sum(CASE WHEN kind <> 'escalation' AND effect = 'allow' THEN 1 ELSE 0 END) AS allow,
        sum(CASE WHEN kind = 'escalation' OR effect = 'require_review' THEN 1 ELSE 0 END) AS require_review,
        sum(CASE WHEN kind <> 'escalation' AND effect = 'deny' THEN 1 ELSE 0 END) AS deny
      FROM ledger WHERE ${sql.and([sql`kind = ${kind}`, ...(since === undefined ? [] : [sql`timestamp >= ${since.toISOString()}`])])}
      GROUP BY ${GROUP_COLUMNS[by]}`
    )
    if (perKind.length === 0) return Effect.succeed<ReadonlyArray<OutcomeTally>>([])
    return sql<OutcomeTally>`SELECT min(principal) AS principal, min(principal_id) AS principal_id, min(rule_id) AS rule_id, min(model) AS model,
        sum(total) AS total, sum(allow) AS allow, sum(require_review) AS require_review, sum(deny) AS deny
      FROM (${sql.join(" UNION ALL ", false)(perKind)}) AS per_kind
      GROUP BY ${GROUP_COLUMNS[by]}`.pipe(
      Effect.map((rows) =>
        rows.map((r) => ({ ...r, total: Number(r.total), allow: Number(r.allow ?? 0), require_review: Number(r.require_review ?? 0), deny: Number(r.deny ?? 0) }))
      ),
      Effect.mapError(unavailable)
    )
  }

  /** One synchronous pass: a page is decoded whole or fails at its first malformed row. */
  const decodePage = (rows: ReadonlyArray<ReadonlyArray<unknown>>) =>
    Effect.suspend(() => {
      const decoded: Array<LedgerRow> = new Array(rows.length)
      for (let i = 0; i < rows.length; i++) {
        const values = rows[i]!
        const row = decodeStored(values, 1)
        if (Either.isLeft(row)) {
          return Effect.fail(new LedgerUnavailable({ detail: `ledger row ${values[0]} is malformed: ${row.left.message.split("\n")[0]}` }))
        }
        decoded[i] = row.right
      }
      return Effect.succeed(decoded as ReadonlyArray<LedgerRow>)
    })

  /**
   * Where a `since` read starts: no row before the first one at or after `since` can match. The planner
   * would walk the rowid from 0 (ORDER BY seq) instead of the timestamp index; this bound, read from the
   * index, lets it skip the old history. `+seq` keeps min() off the rowid, so it reads the covering index.
   */
  const startAfter = (filter: LedgerFilter) =>
    filter.since === undefined
      ? Effect.succeed(0)
      : Effect.map(
          sql<{ first: number | null }>`SELECT min(+seq) AS first FROM ledger WHERE timestamp >= ${filter.since.toISOString()}`,
          (rows) => (rows[0]?.first ?? Number.MAX_SAFE_INTEGER) - 1
        )

  const query = (filter: LedgerFilter): Stream.Stream<LedgerRow, LedgerUnavailable> =>
    Stream.unwrap(Effect.map(Effect.mapError(startAfter(filter), unavailable), (start) => pages(filter, start)))

  const pages = (filter: LedgerFilter, start: number): Stream.Stream<LedgerRow, LedgerUnavailable> =>
    Stream.paginateChunkEffect(start, (after: number) =>
      page(filter, after).pipe(
        Effect.mapError(unavailable),
        Effect.flatMap((rows) =>
          Effect.map(decodePage(rows), (decoded) => {
            const last = rows[rows.length - 1]
            return [
              Chunk.fromIterable(decoded),
              rows.length < PAGE || last === undefined ? Option.none<number>() : Option.some(Number(last[0]))
            ] as const
          })
        )
      )
    )

  /** `query` collected, without a Stream (a tenth of a small read's cost): the same start, pages and order. */
  const list = (filter: LedgerFilter): Effect.Effect<ReadonlyArray<LedgerRow>, LedgerUnavailable> => listCache.cached(filter, readList(filter))

  const readList = (filter: LedgerFilter): Effect.Effect<ReadonlyArray<LedgerRow>, LedgerUnavailable> =>
    Effect.gen(function* () {
      let after = yield* Effect.mapError(startAfter(filter), unavailable)
      const collected: Array<LedgerRow> = []
      for (;;) {
        const rows = yield* Effect.mapError(page(filter, after), unavailable)
        for (const row of yield* decodePage(rows)) collected.push(row)
        const last = rows[rows.length - 1]
        if (rows.length < PAGE || last === undefined) return collected as ReadonlyArray<LedgerRow>
        after = Number(last[0])
      }
    })

  // The parallel walk's worker pool loads only when `audit --verify` runs.
  const verify = Effect.promise(() => import("./verifyParallel")).pipe(
    Effect.flatMap(({ DEFAULT_PARALLEL }) => Effect.flatMap(verifier, (v) => v.verify(DEFAULT_PARALLEL)))
  )

  /**
   * Grouped twice: first by (principal, principal_id, capability, model), the `ledger_reports` index
   * order, so SQLite streams the index without sorting every evaluation; then the sub-groups (a few
   * per principal id) are summed into replay's (principal, capability, model) groups.
   */
  const evaluationGroups = (since: Date | undefined) =>
    sql<EvaluationGroup>`SELECT principal, capability, model, sum(n) AS count,
        min(first) AS first_decision_ref, max(last) AS last_decision_ref
      FROM (SELECT principal, principal_id, capability, model, count(*) AS n, min(decision_ref) AS first, max(decision_ref) AS last
        FROM ledger WHERE kind = 'evaluation' ${since === undefined ? sql`` : sql`AND timestamp >= ${since.toISOString()}`}
        GROUP BY principal, principal_id, capability, model) AS per_id
      GROUP BY principal, capability, model ORDER BY principal, capability, model`.pipe(
      Effect.map((rows) => rows.map((r) => ({ ...r, count: Number(r.count) }))),
      Effect.mapError(unavailable)
    )

  return Ledger.of({
    append,
    appendAll,
    appendSealed,
    chainedAt,
    query,
    list,
    count,
    outcomes,
    verify,
    evaluationGroups,
    headHash: Effect.mapError(head, unavailable)
  })
})

/** The decision ledger on the state store's SQLite. Rows come back in append order. */
export const layer = Layer.effect(Ledger, make)
