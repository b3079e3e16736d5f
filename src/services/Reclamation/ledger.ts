import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { Checkpoints } from "../../platform/Checkpoints"
import type { ArtifactRow, ProvenanceRow, StoredProvenance, UpstreamRecord } from "../Runner/RunStore"
import { RunStoreFailed } from "../Runner/RunStore"
import { type Determinism, scanDeterminism } from "./determinism"

/** Reads and writes of the artifact ledger, provenance and tombstones that gc and restore share. */

const failed = (e: SqlError) => new RunStoreFailed({ detail: e.message })

const toProvenance = (r: StoredProvenance): ProvenanceRow => ({
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
})

const toArtifact = (r: ArtifactRow): ArtifactRow => ({
  ...r,
  size_bytes: Number(r.size_bytes),
  commit_version: Number(r.commit_version),
  rows: Number(r.rows)
})

/** Everything the six checks read, in one snapshot: live rows, provenance, producing durations. */
export interface LedgerSnapshot {
  readonly artifacts: ReadonlyArray<ArtifactRow>
  readonly provenance: ReadonlyMap<string, ProvenanceRow>
  readonly durations: ReadonlyMap<string, number | null>
}

export const keyOf = (runId: string, model: string) => `${runId}|${model}`

type ProvenanceFacts = Omit<StoredProvenance, "model_canonical_json">

/**
 * The recipe JSON is most of provenance's bytes and repeats across runs, so it is read once per
 * recipe hash; a hash whose rows disagree on the JSON (a damaged store) falls back to per-row text.
 */
export const readSnapshot = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      const artifacts = (yield* sql<ArtifactRow>`SELECT * FROM artifacts`).map(toArtifact)
      const recipes = new Map(
        (yield* sql<{ recipe_hash: string; model_canonical_json: string }>`SELECT recipe_hash, min(model_canonical_json) AS model_canonical_json
          FROM provenance GROUP BY recipe_hash HAVING count(DISTINCT model_canonical_json) = 1`).map((r) => [r.recipe_hash, r.model_canonical_json] as const)
      )
      const perRow = new Map(
        (yield* sql<{ run_id: string; model_name: string; model_canonical_json: string }>`SELECT run_id, model_name, model_canonical_json FROM provenance
          WHERE recipe_hash IN (SELECT recipe_hash FROM provenance GROUP BY recipe_hash HAVING count(DISTINCT model_canonical_json) > 1)`).map(
          (r) => [keyOf(r.run_id, r.model_name), r.model_canonical_json] as const
        )
      )
      const facts = yield* sql<ProvenanceFacts>`SELECT run_id, model_name, recipe_hash, input_hash, upstreams_json, output_blake3_json, output_path_json, proof_class, recorded_at FROM provenance`
      const provenance = new Map<string, ProvenanceRow>()
      for (const r of facts) {
        const key = keyOf(r.run_id, r.model_name)
        provenance.set(key, toProvenance({ ...r, model_canonical_json: perRow.get(key) ?? recipes.get(r.recipe_hash) ?? "" }))
      }
      const durations = new Map(
        (yield* sql<{ run_id: string; model_name: string; duration_ms: number | null }>`SELECT run_id, model_name, duration_ms FROM run_models WHERE output_hash IS NOT NULL`).map(
          (r) => [keyOf(r.run_id, r.model_name), r.duration_ms === null ? null : Number(r.duration_ms)] as const
        )
      )
      return { artifacts, provenance, durations } satisfies LedgerSnapshot
    })
  )
}).pipe(Effect.mapError(failed))

/** A snapshot plus the determinism verdict of every recorded recipe's SQL (what the six checks need). */
export interface CheckedSnapshot extends LedgerSnapshot {
  readonly determinism: ReadonlyMap<string, Determinism>
}

/** SQL text of a recorded recipe, when the canonical JSON carries one. */
const recipeSql = (json: string): string | undefined => {
  try {
    const sql = (JSON.parse(json) as { sql?: unknown }).sql
    return typeof sql === "string" ? sql : undefined
  } catch {
    return undefined
  }
}

/** `readSnapshot`, then one parser pass over the distinct recorded SQL texts. */
export const readCheckedSnapshot = Effect.gen(function* () {
  const snapshot = yield* readSnapshot
  const sqls: Array<string> = []
  for (const json of new Set([...snapshot.provenance.values()].map((p) => p.model_canonical_json))) {
    const sql = recipeSql(json)
    if (sql !== undefined) sqls.push(sql)
  }
  const determinism = yield* scanDeterminism(sqls)
  return { ...snapshot, determinism } satisfies CheckedSnapshot
})

export interface TombstoneRow extends ArtifactRow {
  readonly recipe_hash: string | null
  readonly input_hash: string | null
  readonly input_proof_class: string | null
  readonly evicted_at: string
  readonly plan_id: string
  readonly restored_at: string | null
  readonly restore_plan_id: string | null
}

export type EvictOutcome = "evicted" | "already_absent" | "hash_mismatch"

/**
 * One transaction: re-read the live row, check its hash, write the tombstone and retire the
 * row. A crash anywhere leaves either the live row or the tombstone, never both.
 */
export const evict = (row: ArtifactRow, provenance: ProvenanceRow | undefined, planId: string, evictedAt: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        const live = yield* sql<{ blake3_hash: string }>`SELECT blake3_hash FROM artifacts
          WHERE run_id = ${row.run_id} AND model_name = ${row.model_name} AND file_path = ${row.file_path}`
        if (live[0] === undefined) return "already_absent" as EvictOutcome
        if (live[0].blake3_hash !== row.blake3_hash) return "hash_mismatch" as EvictOutcome
        yield* sql`INSERT INTO tombstones ${sql.insert({
          ...row,
          recipe_hash: provenance?.recipe_hash ?? null,
          input_hash: provenance?.input_hash ?? null,
          input_proof_class: provenance?.proof_class ?? null,
          evicted_at: evictedAt,
          plan_id: planId,
          physical_reclaimed: 0
        })}`
        yield* Effect.flatMap(Checkpoints, (c) => c.after("gc-tombstone-written"))
        yield* sql`DELETE FROM artifacts WHERE run_id = ${row.run_id} AND model_name = ${row.model_name} AND file_path = ${row.file_path}`
        return "evicted" as EvictOutcome
      })
    )
  }).pipe(Effect.mapError(failed))

export const readTombstones = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return (yield* sql<TombstoneRow>`SELECT * FROM tombstones ORDER BY evicted_at DESC, blake3_hash`).map((t) => ({ ...t, ...toArtifact(t) }))
}).pipe(Effect.mapError(failed))
