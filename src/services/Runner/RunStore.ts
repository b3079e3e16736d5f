import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Data, Effect, Layer, Schema } from "effect"
import { type ModelExecution, RunRecord } from "../../schemas/pipeline"
import type { ModelFiles } from "../../schemas/plans"
import type { BuiltAttributes } from "../PolicyEngine/attributes"
import { type EnvironmentModel, type EnvironmentStatements, environmentRows, type PhysicalTableRow } from "./environmentRows"
import { fromModelRow, type ModelRow, toModelRow, toNumberOrNull } from "./modelRows"

export { skippedMessage, UPSTREAM_FAILED } from "./modelRows"

/** Code of a model a stopped run never started (Ctrl-C). */
export const INTERRUPTED = "interrupted"

export const interruptedMessage = "the run was interrupted before this model started"

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

/** A model's last successful build: what an incremental run compares against. */
export interface BuildState {
  readonly model_name: string
  /** Hash of the SQL as run, the sidecar, the contract and the strategy. */
  readonly fingerprint: string
  /** What downstream models record having read: changes only when the model's data may have. */
  readonly data_version: string
  /** Data version of each upstream (model name or source reference) when this build read it. */
  readonly inputs: Readonly<Record<string, string>>
  readonly run_id: string
  readonly output_hash: string | null
  readonly output_path: string | null
  /** The build's `run_models` hashes, repeated on the rows of runs that leave it unchanged. */
  readonly sql_hash: string
  readonly recipe_hash: string
  readonly built_at: string
  /** What policy scopes read of the model as built (absent for builds recorded before it was kept). */
  readonly attributes?: BuiltAttributes | undefined
  /** The model's files as built: plan judges a change against them too, whatever `.pcli/applied` says (decisions.md 33). */
  readonly files?: ModelFiles | undefined
}

/** One built interval of a time_interval model, with a digest of the rows it holds. */
export interface IntervalState {
  readonly interval_key: string
  readonly fingerprint: string
  readonly row_count: number
  readonly checksum: string
  readonly run_id: string
}

/** What a run changes in the incremental state, written with the run in one transaction. */
export interface StateChanges {
  readonly builds: ReadonlyArray<BuildState>
  /** Per model: intervals to write (replacing the same keys); `replaceAll` drops the model's others first. */
  readonly intervals: ReadonlyArray<{
    readonly model_name: string
    readonly replaceAll: boolean
    readonly rows: ReadonlyArray<IntervalState>
    readonly removed: ReadonlyArray<string>
  }>
  /** A branch's builds, kept by physical table for a promote to hand to production (decision 37). */
  readonly physicalBuilds?: ReadonlyArray<{ readonly physical: string; readonly build: BuildState; readonly intervals: ReadonlyArray<IntervalState> }>
  /** The physical tables the run built, with their recipes (what gc judges them by). */
  readonly tables?: ReadonlyArray<PhysicalTableRow>
  /** The view targets the run set in its environment (decision 37). */
  readonly environment?: { readonly name: string; readonly models: ReadonlyArray<EnvironmentModel> }
}

/** One line of `pcli history`: a run without its model rows. */
export interface RunSummaryRow {
  readonly run_id: string
  readonly started_at: string
  readonly finished_at: string
  readonly status: RunRecord["status"]
  readonly trigger: string
  readonly models_total: number
  readonly models_failed: number
  readonly models_skipped: number
  readonly models_unchanged: number
  /** Attempts past the first, over all the run's models. */
  readonly retries: number
  /** With a model filter: that model's row in this run. */
  readonly model?: {
    readonly status: ModelExecution["status"]
    readonly duration_ms: number | null
    readonly rows_affected: number | null
    readonly attempts: number
  }
}

/** `pcli history <run_id>` names a run the store does not hold. */
export class RunNotFound extends Data.TaggedError("RunNotFound")<{ readonly runId: string }> {
  readonly code = "run-not-found"
  override get message() {
    return `run ${JSON.stringify(this.runId)} not found in the state store`
  }
}

export interface RunStoreService {
  /**
   * Writes the run, all its model executions and its state changes in one transaction; `planId`
   * links a run `pcli apply` started to its plan.
   */
  readonly recordRun: (run: RunRecord, planId?: string, changes?: StateChanges) => Effect.Effect<void, RunStoreFailed>
  /** Every model's last successful build, by model name. */
  readonly buildStates: Effect.Effect<ReadonlyMap<string, BuildState>, RunStoreFailed>
  /** Environments, their view targets and promotions (statements fail with the store's SqlError). */
  readonly environments: EnvironmentStatements
  readonly intervalsOf: (model: string) => Effect.Effect<ReadonlyArray<IntervalState>, RunStoreFailed>
  /** Most recent runs first; with `model`, only runs that include it. */
  readonly listRuns: (query: { readonly last: number; readonly model?: string | undefined }) => Effect.Effect<ReadonlyArray<RunSummaryRow>, RunStoreFailed>
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

/** 19 columns × 500 rows stays under SQLite's 32,766 bound parameters. */
const INSERT_BATCH = 500

const failed = (e: SqlError) => new RunStoreFailed({ detail: e.message })

type RunRow = Omit<RunRecord, "models">

interface StoredSummary extends Omit<RunSummaryRow, "model"> {
  readonly m_status?: ModelExecution["status"] | null
  readonly m_duration_ms?: number | null
  readonly m_rows_affected?: number | null
  readonly m_attempts?: number | null
}

interface StoredBuild extends Omit<BuildState, "inputs" | "attributes" | "files"> {
  readonly inputs_json: string
  readonly attributes_json: string | null
}

// The files ride in `attributes_json` under this key: a new column would need a pg migration path the store has not.
const FILES_KEY = "built_files"

/** A build state as `model_builds` holds it. */
const storedBuild = ({ inputs, attributes, files, ...b }: BuildState): Record<string, unknown> => ({
  ...b,
  inputs_json: JSON.stringify(inputs),
  attributes_json: attributes === undefined && files === undefined ? null : JSON.stringify({ ...attributes, ...(files === undefined ? {} : { [FILES_KEY]: files }) })
})

/** The attributes and files `attributes_json` holds (either may be absent in older rows). */
const parseAttributes = (json: string | null | undefined): Pick<BuildState, "attributes" | "files"> => {
  if (json === null || json === undefined) return {}
  const { [FILES_KEY]: files, ...attributes } = JSON.parse(json) as BuiltAttributes & { readonly [FILES_KEY]?: ModelFiles }
  return { ...(Object.keys(attributes).length === 0 ? {} : { attributes }), ...(files === undefined ? {} : { files }) }
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
    const summaryColumns = sql`r.run_id, r.started_at, r.finished_at, r.status, r.trigger, r.models_total, r.models_failed,
      r.models_skipped, r.models_unchanged, (SELECT coalesce(sum(max(a.attempts - 1, 0)), 0) FROM run_models a WHERE a.run_id = r.run_id) AS retries`
    const environments = environmentRows(sql)
    return {
      environments,
      recordRun: (run, planId, changes) =>
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
                models_unchanged: run.models.filter((m) => m.status === "unchanged").length,
                plan_id: planId ?? null
              })}`
              // Batches of rows per statement: a 1,000-model run is a handful of statements, not 1,000.
              for (let i = 0; i < run.models.length; i += INSERT_BATCH) {
                const rows = run.models.slice(i, i + INSERT_BATCH).map((m) => ({ run_id: run.run_id, ...toModelRow(m) }))
                yield* sql`INSERT INTO run_models ${sql.insert(rows)}`
              }
              for (const b of changes?.builds ?? []) {
                // Portable upsert (SQLite and PostgreSQL): the model's last build replaces the one before.
                yield* sql`DELETE FROM model_builds WHERE model_name = ${b.model_name}`
                yield* sql`INSERT INTO model_builds ${sql.insert(storedBuild(b))}`
              }
              yield* environments.putPhysicalBuilds(
                (changes?.physicalBuilds ?? []).map((p) => ({ physical: p.physical, build: storedBuild(p.build), intervals: p.intervals.map((i) => ({ model_name: p.build.model_name, ...i })) }))
              )
              for (const change of changes?.intervals ?? []) {
                if (change.replaceAll) yield* sql`DELETE FROM model_intervals WHERE model_name = ${change.model_name}`
                for (const key of change.removed) {
                  yield* sql`DELETE FROM model_intervals WHERE model_name = ${change.model_name} AND interval_key = ${key}`
                }
                for (const row of change.rows) {
                  yield* sql`DELETE FROM model_intervals WHERE model_name = ${change.model_name} AND interval_key = ${row.interval_key}`
                  yield* sql`INSERT INTO model_intervals ${sql.insert({ model_name: change.model_name, ...row })}`
                }
              }
              yield* environments.putPhysicalTables(changes?.tables ?? [])
              if (changes?.environment !== undefined) yield* environments.putModels(changes.environment.name, changes.environment.models)
            })
          )
          .pipe(Effect.mapError(failed)),
      buildStates: sql<StoredBuild>`SELECT * FROM model_builds`.pipe(
        Effect.map(
          (rows) =>
            new Map(
              rows.map(({ inputs_json, attributes_json, ...b }) => [
                b.model_name,
                { ...b, inputs: JSON.parse(inputs_json) as Record<string, string>, ...parseAttributes(attributes_json) }
              ])
            )
        ),
        Effect.mapError(failed)
      ),
      intervalsOf: (model) =>
        sql<IntervalState>`SELECT interval_key, fingerprint, row_count, checksum, run_id FROM model_intervals WHERE model_name = ${model} ORDER BY interval_key`.pipe(
          Effect.map((rows) => rows.map((r) => ({ ...r, row_count: Number(r.row_count) }))),
          Effect.mapError(failed)
        ),
      listRuns: ({ last, model }) =>
        (model === undefined
          ? sql<StoredSummary>`SELECT ${summaryColumns} FROM runs r ORDER BY r.started_at DESC, r.run_id DESC LIMIT ${last}`
          : sql<StoredSummary>`SELECT ${summaryColumns}, m.status AS m_status, m.duration_ms AS m_duration_ms,
                m.rows_affected AS m_rows_affected, m.attempts AS m_attempts
              FROM runs r JOIN run_models m ON m.run_id = r.run_id AND m.model_name = ${model}
              ORDER BY r.started_at DESC, r.run_id DESC LIMIT ${last}`
        ).pipe(
          Effect.map((rows) =>
            rows.map(({ m_status, m_duration_ms, m_rows_affected, m_attempts, ...r }): RunSummaryRow => ({
              ...r,
              models_total: Number(r.models_total),
              models_failed: Number(r.models_failed),
              models_skipped: Number(r.models_skipped),
              models_unchanged: Number(r.models_unchanged),
              retries: Number(r.retries),
              ...(m_status === undefined || m_status === null
                ? {}
                : {
                    model: {
                      status: m_status,
                      duration_ms: toNumberOrNull(m_duration_ms),
                      rows_affected: toNumberOrNull(m_rows_affected),
                      attempts: Number(m_attempts)
                    }
                  })
            }))
          ),
          Effect.mapError(failed)
        ),
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
