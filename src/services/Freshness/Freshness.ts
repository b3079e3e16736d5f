// Freshness (issue 35): a model's `[freshness]` (written by product lowering, or by hand) checked
// against its built table: how far `max(time_column)` lags the warehouse's clock. Recorded in the
// state store so `pcli brief` reports it.
import { SqlClient } from "@effect/sql"
import { Clock, Data, Effect } from "effect"
import type { FreshnessCheck } from "../../schemas/freshness"
import type { Severity } from "../../schemas/model"
import type { CompiledModel } from "../Project/compile"
import { physicalName } from "../Runner/strategies"
import { quoteIdent } from "../Runner/tests"
import { Warehouse } from "../Warehouse/Warehouse"

export class FreshnessRecordFailed extends Data.TaggedError("FreshnessRecordFailed")<{ readonly detail: string }> {
  readonly code = "freshness-record-failed"
  override get message() {
    return `state store (freshness): ${this.detail}`
  }
}

export interface FreshnessRule {
  readonly timeColumn: string
  readonly maxLagSeconds: number
  readonly severity: Severity
}

/** The model's freshness rule; undefined when it declares none (a lag and a time column are both needed). */
export const freshnessRule = (model: CompiledModel): FreshnessRule | undefined => {
  const f = model.definition.sidecar.freshness
  const lag = f?.max_lag_seconds ?? f?.expected_lag_seconds
  if (f === undefined || lag === undefined || f.time_column === undefined) return undefined
  return { timeColumn: f.time_column, maxLagSeconds: lag, severity: f.severity ?? "error" }
}

/** The lag is computed by the warehouse against its own clock, as the model's own `now()` would be. */
const freshnessQuery = (column: string, relation: string) => {
  const newest = `max(${quoteIdent(column)})`
  return `SELECT CAST(${newest} AS VARCHAR), date_diff('second', CAST(${newest} AS TIMESTAMP), CAST(current_timestamp AS TIMESTAMP)) FROM ${relation}`
}

/** Checks one model's built table; a failed query is an `error` result naming the column, never a failure. */
export const checkModelFreshness = (model: CompiledModel, rule: FreshnessRule, runId: string | null): Effect.Effect<FreshnessCheck, never, Warehouse> =>
  Effect.gen(function* () {
    const wh = yield* Warehouse
    const checked_at = new Date(yield* Clock.currentTimeMillis).toISOString()
    const base = {
      model: model.name,
      product: model.definition.sidecar.tags["product"] ?? null,
      time_column: rule.timeColumn,
      max_lag_seconds: rule.maxLagSeconds,
      severity: rule.severity,
      checked_at,
      run_id: runId
    }
    const answer = yield* Effect.either(wh.execute(freshnessQuery(rule.timeColumn, physicalName(model.target, wh.kind))))
    if (answer._tag === "Left") {
      const detail = `freshness of ${model.name}.${rule.timeColumn}: ${answer.left.message.split("\n")[0]}`
      return { ...base, status: "error", newest: null, lag_seconds: null, detail } satisfies FreshnessCheck
    }
    const [newest, lag] = answer.right.rows[0] ?? [null, null]
    if (newest === null || newest === undefined || lag === null || lag === undefined) {
      return { ...base, status: "empty", newest: null, lag_seconds: null, detail: `${model.name}.${rule.timeColumn} has no value` } satisfies FreshnessCheck
    }
    const lagSeconds = Number(lag)
    const fresh = lagSeconds <= rule.maxLagSeconds
    return {
      ...base,
      status: fresh ? "fresh" : "stale",
      newest: String(newest),
      lag_seconds: lagSeconds,
      detail: `newest ${rule.timeColumn} ${String(newest)} is ${lagSeconds}s old (${fresh ? "within" : "over"} ${rule.maxLagSeconds}s)`
    } satisfies FreshnessCheck
  })

/** Checks every given model that declares freshness, in the order given. */
export const checkFreshness = (models: ReadonlyArray<CompiledModel>, runId: string | null) =>
  Effect.forEach(
    models.flatMap((m) => {
      const rule = freshnessRule(m)
      return rule === undefined ? [] : [[m, rule] as const]
    }),
    ([model, rule]) => checkModelFreshness(model, rule, runId)
  )

/** Appends the checks to the state store's `freshness_checks`. */
export const recordFreshness = (checks: ReadonlyArray<FreshnessCheck>) =>
  Effect.gen(function* () {
    if (checks.length === 0) return
    const sql = yield* SqlClient.SqlClient
    yield* sql.withTransaction(
      Effect.forEach(
        checks,
        (c) =>
          sql`INSERT INTO freshness_checks (checked_at, run_id, model, product, time_column, max_lag_seconds, severity, status, newest, lag_seconds, detail)
            VALUES (${c.checked_at}, ${c.run_id}, ${c.model}, ${c.product}, ${c.time_column}, ${c.max_lag_seconds}, ${c.severity}, ${c.status}, ${c.newest}, ${c.lag_seconds}, ${c.detail})`,
        { discard: true }
      )
    )
  }).pipe(Effect.mapError((e) => new FreshnessRecordFailed({ detail: String(e.message) })))

/** The latest check of each model in `[from, to)`, by model name. */
export const latestFreshness = (window: { readonly from?: string; readonly to: string }) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<FreshnessCheck>`SELECT model, product, time_column, max_lag_seconds, severity, status, newest, lag_seconds, checked_at, run_id, detail
      FROM freshness_checks WHERE ${window.from === undefined ? sql`checked_at < ${window.to}` : sql`checked_at >= ${window.from} AND checked_at < ${window.to}`}
      ORDER BY checked_at DESC`
    const latest = new Map<string, FreshnessCheck>()
    for (const r of rows) {
      if (!latest.has(r.model)) {
        latest.set(r.model, { ...r, max_lag_seconds: Number(r.max_lag_seconds), lag_seconds: r.lag_seconds === null ? null : Number(r.lag_seconds) })
      }
    }
    return [...latest.values()].sort((a, b) => a.model.localeCompare(b.model))
  }).pipe(Effect.mapError((e) => new FreshnessRecordFailed({ detail: String(e.message) })))
