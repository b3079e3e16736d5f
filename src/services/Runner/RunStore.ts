import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Data, Effect, Layer, Schema } from "effect"
import { type ModelExecution, RunRecord } from "../../schemas/pipeline"

/** Code of a skipped model's execution: an upstream failed (decisions.md item 23). */
export const UPSTREAM_FAILED = "upstream-failed"

export const skippedMessage = (failedUpstream: string) => `upstream ${failedUpstream} failed`

export interface ArtifactRow {
  readonly run_id: string
  readonly model_name: string
  readonly file_path: string
  readonly blake3_hash: string
  readonly size_bytes: number
  readonly commit_version: number
  readonly rows: number
  readonly written_at: string
}

export interface UpstreamRecord {
  readonly kind: "content" | "watermark"
  readonly upstream_key: string
  readonly blake3_hash?: string
}

export interface ProvenanceRow {
  readonly run_id: string
  readonly model_name: string
  readonly recipe_hash: string
  readonly input_hash: string
  readonly model_canonical_json: string
  readonly upstreams: ReadonlyArray<UpstreamRecord>
  readonly output_blake3: ReadonlyArray<string>
  readonly output_path: ReadonlyArray<string>
  readonly proof_class: "strong" | "heuristic"
  readonly recorded_at: string
}

/** A provenance row as SQLite holds it (JSON columns still encoded). */
export interface StoredProvenance {
  readonly run_id: string
  readonly model_name: string
  readonly recipe_hash: string
  readonly input_hash: string
  readonly model_canonical_json: string
  readonly upstreams_json: string
  readonly output_blake3_json: string
  readonly output_path_json: string
  readonly proof_class: "strong" | "heuristic"
  readonly recorded_at: string
}

export class RunStoreFailed extends Data.TaggedError("RunStoreFailed")<{ readonly detail: string }> {
  readonly code = "run-store-failed"
  override get message() {
    return `state store (pipeline runs): ${this.detail}`
  }
}

export interface RunStoreService {
  /** Writes the run and all its model executions in one transaction; `planId` links a run `pcli apply` started to its plan. */
  readonly recordRun: (run: RunRecord, planId?: string) => Effect.Effect<void, RunStoreFailed>
  readonly recordArtifact: (row: ArtifactRow) => Effect.Effect<void, RunStoreFailed>
  readonly recordProvenance: (row: ProvenanceRow) => Effect.Effect<void, RunStoreFailed>
  /** 1 + the highest commit version recorded for the model (1 for its first artifact). */
  readonly nextCommitVersion: (model: string) => Effect.Effect<number, RunStoreFailed>
  readonly getRun: (runId: string) => Effect.Effect<RunRecord | undefined, RunStoreFailed>
  readonly latestRun: Effect.Effect<RunRecord | undefined, RunStoreFailed>
  readonly artifactsOf: (runId: string) => Effect.Effect<ReadonlyArray<ArtifactRow>, RunStoreFailed>
  readonly provenanceOf: (runId: string, model: string) => Effect.Effect<ProvenanceRow | undefined, RunStoreFailed>
  /** The model's most recent successful execution within the last `runs` runs (cost estimates). */
  readonly lastSuccessOf: (
    model: string,
    runs: number
  ) => Effect.Effect<{ readonly run_id: string; readonly duration_ms: number | null } | undefined, RunStoreFailed>
}

export class RunStore extends Context.Tag("pcli/RunStore")<RunStore, RunStoreService>() {}

const failed = (e: SqlError) => new RunStoreFailed({ detail: e.message })

type RunRow = Omit<RunRecord, "models">

type ModelRow = Omit<ModelExecution, "warnings" | "failed_upstream"> & { readonly warnings_json: string }

const toNumberOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v))

// `run_models` has no column for the failed upstream: a skipped row's error_message holds its name.
const toModelRow = ({ warnings, failed_upstream, ...m }: ModelExecution): ModelRow => ({
  ...m,
  error_message: m.status === "skipped" && m.error_code === UPSTREAM_FAILED ? failed_upstream : m.error_message,
  warnings_json: JSON.stringify(warnings)
})

const fromModelRow = ({ warnings_json, ...m }: ModelRow): unknown => {
  const upstream = m.status === "skipped" && m.error_code === UPSTREAM_FAILED ? m.error_message : null
  return {
    ...m,
    duration_ms: toNumberOrNull(m.duration_ms),
    rows_affected: toNumberOrNull(m.rows_affected),
    attempts: Number(m.attempts),
    position: Number(m.position),
    error_message: upstream === null ? m.error_message : skippedMessage(upstream),
    failed_upstream: upstream,
    warnings: JSON.parse(warnings_json) as unknown
  }
}

const decodeRun = Schema.decodeUnknown(RunRecord)

export const layer: Layer.Layer<RunStore, never, SqlClient.SqlClient> = Layer.effect(
  RunStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const readRun = (row: RunRow) =>
      sql<ModelRow>`SELECT * FROM run_models WHERE run_id = ${row.run_id} ORDER BY position`.pipe(
        Effect.mapError(failed),
        Effect.flatMap((models) =>
          decodeRun({ ...row, models: models.map(fromModelRow) }).pipe(
            Effect.mapError((e) => new RunStoreFailed({ detail: `run ${row.run_id} is malformed: ${e.message}` }))
          )
        )
      )
    const runColumns = sql`run_id, started_at, finished_at, status, trigger, partition_from, partition_to`
    return {
      recordRun: (run, planId) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              yield* sql`INSERT INTO runs ${sql.insert({
                run_id: run.run_id,
                started_at: run.started_at,
                finished_at: run.finished_at,
                status: run.status,
                trigger: run.trigger,
                partition_from: run.partition_from,
                partition_to: run.partition_to,
                models_total: run.models.length,
                models_failed: run.models.filter((m) => m.status === "failed").length,
                models_skipped: run.models.filter((m) => m.status === "skipped").length,
                plan_id: planId ?? null
              })}`
              for (const m of run.models) {
                yield* sql`INSERT INTO run_models ${sql.insert({ run_id: run.run_id, ...toModelRow(m) })}`
              }
            })
          )
          .pipe(Effect.mapError(failed)),
      recordArtifact: (row) => sql`INSERT INTO artifacts ${sql.insert({ ...row })}`.pipe(Effect.asVoid, Effect.mapError(failed)),
      recordProvenance: (row) =>
        sql`INSERT INTO provenance ${sql.insert({
          run_id: row.run_id,
          model_name: row.model_name,
          recipe_hash: row.recipe_hash,
          input_hash: row.input_hash,
          model_canonical_json: row.model_canonical_json,
          upstreams_json: JSON.stringify(row.upstreams),
          output_blake3_json: JSON.stringify(row.output_blake3),
          output_path_json: JSON.stringify(row.output_path),
          proof_class: row.proof_class,
          recorded_at: row.recorded_at
        })}`.pipe(Effect.asVoid, Effect.mapError(failed)),
      nextCommitVersion: (model) =>
        sql<{ v: number | null }>`SELECT max(commit_version) AS v FROM artifacts WHERE model_name = ${model}`.pipe(
          Effect.map((rows) => Number(rows[0]?.v ?? 0) + 1),
          Effect.mapError(failed)
        ),
      getRun: (runId) =>
        sql<RunRow>`SELECT ${runColumns} FROM runs WHERE run_id = ${runId}`.pipe(
          Effect.mapError(failed),
          Effect.flatMap((rows) => (rows[0] === undefined ? Effect.succeed(undefined) : readRun(rows[0])))
        ),
      latestRun: sql<RunRow>`SELECT ${runColumns} FROM runs ORDER BY started_at DESC, run_id DESC LIMIT 1`.pipe(
        Effect.mapError(failed),
        Effect.flatMap((rows) => (rows[0] === undefined ? Effect.succeed(undefined) : readRun(rows[0])))
      ),
      artifactsOf: (runId) =>
        sql<ArtifactRow>`SELECT * FROM artifacts WHERE run_id = ${runId} ORDER BY model_name, file_path`.pipe(
          Effect.map((rows) =>
            rows.map((r) => ({ ...r, size_bytes: Number(r.size_bytes), commit_version: Number(r.commit_version), rows: Number(r.rows) }))
          ),
          Effect.mapError(failed)
        ),
      lastSuccessOf: (model, runs) =>
        sql<{ run_id: string; duration_ms: number | null }>`SELECT m.run_id, m.duration_ms FROM run_models m
          JOIN (SELECT run_id, started_at FROM runs ORDER BY started_at DESC, run_id DESC LIMIT ${runs}) r ON r.run_id = m.run_id
          WHERE m.model_name = ${model} AND m.status = 'success' ORDER BY r.started_at DESC, r.run_id DESC LIMIT 1`.pipe(
          Effect.map((rows) => (rows[0] === undefined ? undefined : { run_id: rows[0].run_id, duration_ms: toNumberOrNull(rows[0].duration_ms) })),
          Effect.mapError(failed)
        ),
      provenanceOf: (runId, model) =>
        sql<StoredProvenance>`SELECT * FROM provenance WHERE run_id = ${runId} AND model_name = ${model}`.pipe(
          Effect.map((rows) => {
            const r = rows[0]
            if (r === undefined) return undefined
            const row: ProvenanceRow = {
              run_id: r.run_id,
              model_name: r.model_name,
              recipe_hash: r.recipe_hash,
              input_hash: r.input_hash,
              model_canonical_json: r.model_canonical_json,
              upstreams: JSON.parse(r.upstreams_json) as ReadonlyArray<UpstreamRecord>,
              output_blake3: JSON.parse(r.output_blake3_json) as ReadonlyArray<string>,
              output_path: JSON.parse(r.output_path_json) as ReadonlyArray<string>,
              proof_class: r.proof_class,
              recorded_at: r.recorded_at
            }
            return row
          }),
          Effect.mapError(failed)
        )
    }
  })
)
