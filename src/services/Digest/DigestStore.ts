import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Data, Effect, Layer } from "effect"
import type { BriefRun, PendingEscalation, QualityFinding } from "../../schemas/brief"

export class DigestReadFailed extends Data.TaggedError("DigestReadFailed")<{ readonly detail: string }> {
  readonly code = "digest-read-failed"
  override get message() {
    return `state store (brief): ${this.detail}`
  }
}

/** A half-open time range over RFC 3339 UTC strings: `from` inclusive (absent: all history), `to` exclusive. */
export interface Window {
  readonly from?: string
  readonly to: string
}

export interface ExecutionSummary {
  readonly executions: number
  readonly failed: number
  readonly warnings: number
  readonly findings: ReadonlyArray<QualityFinding>
  readonly cost: ReadonlyArray<{ readonly run_id: string; readonly duration_ms: number; readonly rows_affected: number }>
}

export type RunSelector = { readonly runId: string } | { readonly planId: string } | { readonly model: string }

/** The state-store reads `pcli brief` needs beyond the ledger, and the cursor that is its only write. */
export interface DigestStoreService {
  /** `last_brief_at`: the `generated_at` of the previous `--since last` digest. */
  readonly cursor: Effect.Effect<string | undefined, DigestReadFailed>
  readonly advanceCursor: (generatedAt: string) => Effect.Effect<void, DigestReadFailed>
  /** Runs started in the window, newest first. */
  readonly runs: (window: Window) => Effect.Effect<ReadonlyArray<BriefRun>, DigestReadFailed>
  /** Model executions of the runs started in the window: failures, warnings, time and rows. */
  readonly executions: (window: Window) => Effect.Effect<ExecutionSummary, DigestReadFailed>
  /** Runs for the custody chain: one run, the runs that applied a plan, or the runs that executed a model; newest first. */
  readonly runsFor: (selector: RunSelector) => Effect.Effect<ReadonlyArray<BriefRun>, DigestReadFailed>
  /** Models one run executed, in run order. */
  readonly modelsOfRun: (runId: string) => Effect.Effect<ReadonlyArray<string>, DigestReadFailed>
  /** Plans with an escalation (or a require_review evaluation) and no approval row, newest first, over the whole ledger. */
  readonly pendingEscalations: Effect.Effect<ReadonlyArray<PendingEscalation>, DigestReadFailed>
}

export class DigestStore extends Context.Tag("pcli/DigestStore")<DigestStore, DigestStoreService>() {}

const CURSOR_KEY = "last_brief_at"

const failed = (e: SqlError) => new DigestReadFailed({ detail: String((e.cause as Error | undefined)?.message ?? e.message) })

export const layer: Layer.Layer<DigestStore, never, SqlClient.SqlClient> = Layer.effect(
  DigestStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const inWindow = (column: string, w: Window) =>
      w.from === undefined ? sql`${sql(column)} < ${w.to}` : sql`${sql(column)} >= ${w.from} AND ${sql(column)} < ${w.to}`

    const runColumns = sql`r.run_id, r.status, r.started_at, r.finished_at, r.trigger, r.plan_id, r.models_total, r.models_failed, r.models_skipped`
    const readRuns = (rows: ReadonlyArray<BriefRun>) =>
      rows.map((r) => ({ ...r, models_total: Number(r.models_total), models_failed: Number(r.models_failed), models_skipped: Number(r.models_skipped) }))

    const runs = (w: Window) =>
      sql<BriefRun>`SELECT ${runColumns} FROM runs r WHERE ${inWindow("r.started_at", w)} ORDER BY r.started_at DESC, r.run_id DESC`.pipe(
        Effect.map(readRuns),
        Effect.mapError(failed)
      )

    const runsFor = (selector: RunSelector) =>
      ("runId" in selector
        ? sql<BriefRun>`SELECT ${runColumns} FROM runs r WHERE r.run_id = ${selector.runId}`
        : "planId" in selector
          ? sql<BriefRun>`SELECT ${runColumns} FROM runs r WHERE r.plan_id = ${selector.planId} ORDER BY r.started_at DESC, r.run_id DESC`
          : sql<BriefRun>`SELECT ${runColumns} FROM runs r JOIN run_models m ON m.run_id = r.run_id
              WHERE m.model_name = ${selector.model} ORDER BY r.started_at DESC, r.run_id DESC`
      ).pipe(Effect.map(readRuns), Effect.mapError(failed))

    const modelsOfRun = (runId: string) =>
      sql<{ model_name: string }>`SELECT model_name FROM run_models WHERE run_id = ${runId} ORDER BY position`.pipe(
        Effect.map((rows) => rows.map((r) => r.model_name)),
        Effect.mapError(failed)
      )

    const executions = (w: Window) =>
      Effect.gen(function* () {
        const rows = yield* sql<{
          run_id: string
          model_name: string
          status: string
          duration_ms: number | null
          rows_affected: number | null
          error_code: string | null
          error_message: string | null
          warnings_json: string
        }>`SELECT m.run_id, m.model_name, m.status, m.duration_ms, m.rows_affected, m.error_code, m.error_message, m.warnings_json
          FROM run_models m JOIN runs r ON r.run_id = m.run_id
          WHERE ${inWindow("r.started_at", w)} ORDER BY r.started_at DESC, r.run_id DESC, m.position`
        const findings: Array<QualityFinding> = []
        const cost = new Map<string, { run_id: string; duration_ms: number; rows_affected: number }>()
        let failedCount = 0
        let warnings = 0
        for (const m of rows) {
          const c = cost.get(m.run_id) ?? { run_id: m.run_id, duration_ms: 0, rows_affected: 0 }
          c.duration_ms += Number(m.duration_ms ?? 0)
          c.rows_affected += Number(m.rows_affected ?? 0)
          cost.set(m.run_id, c)
          if (m.status === "failed") {
            failedCount++
            findings.push({ run_id: m.run_id, model: m.model_name, status: m.status, error_code: m.error_code, detail: m.error_message ?? "failed" })
          }
          for (const w of JSON.parse(m.warnings_json) as ReadonlyArray<string>) {
            warnings++
            findings.push({ run_id: m.run_id, model: m.model_name, status: "warning", error_code: null, detail: w })
          }
        }
        return { executions: rows.length, failed: failedCount, warnings, findings, cost: [...cost.values()] }
      }).pipe(Effect.mapError(failed))

    const pendingEscalations = sql<PendingEscalation>`SELECT l.plan_id, l.timestamp AS escalated_at, l.decision_ref, l.principal, l.principal_id,
        l.capability, l.model, l.reason
      FROM ledger l
      JOIN (SELECT plan_id, max(seq) AS seq FROM ledger
            WHERE plan_id IS NOT NULL AND (kind = 'escalation' OR (kind = 'evaluation' AND effect = 'require_review'))
            GROUP BY plan_id) e ON e.seq = l.seq
      WHERE NOT EXISTS (SELECT 1 FROM ledger a WHERE a.plan_id = l.plan_id AND a.kind = 'approval')
      ORDER BY l.seq DESC`.pipe(Effect.mapError(failed))

    return {
      cursor: sql<{ value: string }>`SELECT value FROM meta WHERE key = ${CURSOR_KEY}`.pipe(
        Effect.map((rows) => rows[0]?.value),
        Effect.mapError(failed)
      ),
      advanceCursor: (generatedAt) =>
        sql`INSERT INTO meta (key, value) VALUES (${CURSOR_KEY}, ${generatedAt}) ON CONFLICT (key) DO UPDATE SET value = excluded.value`.pipe(
          Effect.asVoid,
          Effect.mapError(failed)
        ),
      runs,
      runsFor,
      modelsOfRun,
      executions,
      pendingEscalations
    }
  })
)
