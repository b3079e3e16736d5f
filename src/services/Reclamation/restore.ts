import { FileSystem, Path } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { pathToFileURL } from "node:url"
import { Checkpoints } from "../../platform/Checkpoints"
import { fromUrl } from "../../platform/ObjectStore/ObjectStore"
import type { Restoration } from "../../schemas/reclaim"
import { blake3Hex, writeParquetArtifact } from "../Artifacts/artifacts"
import { bodyOf } from "../Runner/strategies"
import { RunStoreFailed } from "../Runner/RunStore"
import { DuckDb } from "../Warehouse/embedded"
import { readsFiles, withMemoryToGrow } from "../Warehouse/memoryCap"
import { Warehouse } from "../Warehouse/Warehouse"
import { parseRecipe } from "./checks"
import type { TombstoneRow } from "./ledger"

export type RestoreOutcome =
  | { readonly _tag: "Restored"; readonly bytesWritten: boolean }
  | { readonly _tag: "AlreadyRestored" }
  | { readonly _tag: "Refused"; readonly condition: string; readonly reason: string }

const refuse = (condition: string, reason: string): RestoreOutcome => ({ _tag: "Refused", condition, reason })

/**
 * Restores one evicted artifact, in order: tombstone, provenance binding, recipe, restorability,
 * storage, re-execution of the RECORDED SQL, hash equality, create-only write, reinstatement.
 */
export const restoreOne = (r: Restoration, planId: string, projectRoot: string) =>
  Effect.scoped(Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const failed = (e: { message: string }) => new RunStoreFailed({ detail: e.message })
    // (1) the tombstone still matches.
    const tombs = yield* sql<TombstoneRow>`SELECT * FROM tombstones WHERE run_id = ${r.run_id} AND model_name = ${r.model_name}
      AND file_path = ${r.file_path} AND blake3_hash = ${r.blake3_hash} ORDER BY evicted_at DESC`.pipe(Effect.mapError(failed))
    if (tombs.length === 0) return refuse("tombstone_matches", "no tombstone matches this restoration: the plan is stale or hand-authored")
    if (tombs.every((t) => t.restored_at !== null)) return { _tag: "AlreadyRestored" } as RestoreOutcome
    // (2) provenance binds this hash and path.
    const prov = yield* sql<{ model_canonical_json: string; upstreams_json: string; output_blake3_json: string; output_path_json: string }>`SELECT model_canonical_json, upstreams_json, output_blake3_json, output_path_json FROM provenance WHERE run_id = ${r.run_id} AND model_name = ${r.model_name}`.pipe(Effect.mapError(failed))
    const p = prov[0]
    const hashes = p === undefined ? [] : (JSON.parse(p.output_blake3_json) as Array<string>)
    const paths = p === undefined ? [] : (JSON.parse(p.output_path_json) as Array<string>)
    if (p === undefined || !hashes.some((h, i) => h === r.blake3_hash && (paths.length === 0 || paths[i] === r.file_path))) {
      return refuse("provenance_binding", "restore pointer no longer binds: provenance does not record this hash at this path")
    }
    // (3) the canonical recipe deserializes.
    const recipe = parseRecipe(p.model_canonical_json)
    if (recipe === undefined) return refuse("recipe_deserializes", "the recorded recipe does not deserialize")
    // (4) content-addressed, not partitioned, no recorded upstream.
    if (recipe.strategy.type !== "content_addressed" || typeof recipe.strategy.storage_prefix !== "string") {
      return refuse("restorable_recipe", "the recorded recipe is not content-addressed")
    }
    if ((recipe.strategy.partition_columns ?? []).length > 0) return refuse("restorable_recipe", "the recorded recipe is partitioned: refused outright")
    const upstreams = JSON.parse(p.upstreams_json) as Array<unknown>
    if (upstreams.length > 0) {
      return refuse("restorable_recipe", `the recipe reads ${upstreams.length} recorded upstream(s): refused rather than substituting current data`)
    }
    // (5) storage reachable and the path inside the storage prefix.
    const prefix = recipe.strategy.storage_prefix
    const located = locateInStore(prefix, r.file_path, projectRoot, path)
    if (typeof located === "string") return refuse("storage", located)
    const store = yield* fromUrl(located.url).pipe(Effect.either)
    if (store._tag === "Left") return refuse("storage", `storage ${prefix} is not reachable: ${store.left.message}`)
    const reachable = yield* store.right.head(located.key).pipe(Effect.either)
    if (reachable._tag === "Left") return refuse("storage", `storage is not reachable: ${reachable.left.message}; nothing was written`)
    // (6) re-execute the recorded SQL through the same encoder, into a private scratch directory.
    const duck = yield* Effect.serviceOption(DuckDb)
    const wh = yield* Warehouse
    if (Option.isNone(duck) || wh.kind !== "embedded") return refuse("reexecute", "restore needs the embedded DuckDB warehouse; nothing was written")
    const scratch = yield* fs.makeTempDirectoryScoped({ prefix: "pcli-restore-" }).pipe(Effect.mapError(failed))
    const stage = `"__pcli_restore_${r.blake3_hash.slice(0, 16)}"`
    const rebuilt = yield* Effect.gen(function* () {
      yield* wh.execute(`CREATE OR REPLACE TABLE ${stage} AS (\n${bodyOf(recipe.sql)}\n)`)
      const written = yield* writeParquetArtifact({ duck: duck.value, model: r.model_name, relation: stage, dir: scratch, tempName: ".rebuild.parquet" })
      return { hash: written.hash, bytes: yield* fs.readFile(written.absolutePath) }
    }).pipe((rebuild) => withMemoryToGrow(rebuild, `restore of ${r.model_name}`, { readsFiles: readsFiles(recipe.sql) }), Effect.either)
    yield* wh.execute(`DROP TABLE IF EXISTS ${stage}`).pipe(Effect.ignore)
    if (rebuilt._tag === "Left") return refuse("reexecute", `re-executing the recorded SQL failed: ${rebuilt.left.message}; nothing was written`)
    // (7) the hash must equal the tombstoned hash.
    if (rebuilt.right.hash !== r.blake3_hash) {
      return refuse("hash_reproduces", `REBUILD MISMATCH: rebuilt ${rebuilt.right.hash.slice(0, 12)}… but the tombstone holds ${r.blake3_hash.slice(0, 12)}…; nothing was written`)
    }
    // (8) create-only: identical bytes already there are verified, different bytes are never overwritten.
    const created = yield* store.right.putIfAbsent(located.key, rebuilt.right.bytes, { contentType: "application/vnd.apache.parquet" }).pipe(Effect.either)
    if (created._tag === "Left") return refuse("write", `cannot write ${r.file_path}: ${created.left.message}`)
    if (!created.right) {
      const existing = yield* store.right.get(located.key).pipe(Effect.either)
      if (existing._tag === "Left" || Option.isNone(existing.right) || blake3Hex(existing.right.value) !== r.blake3_hash) {
        return refuse("write", `different bytes already sit at ${r.file_path}: restore never overwrites`)
      }
    }
    // (9) reinstate the ledger row and stamp the tombstone in one transaction.
    const now = new Date(yield* Clock.currentTimeMillis).toISOString()
    const tomb = tombs.find((t) => t.restored_at === null)!
    const stamped = yield* sql
      .withTransaction(
        Effect.gen(function* () {
          const still = yield* sql<{ n: number }>`SELECT count(*) AS n FROM tombstones WHERE run_id = ${r.run_id} AND model_name = ${r.model_name}
            AND file_path = ${r.file_path} AND evicted_at = ${tomb.evicted_at} AND restored_at IS NULL`
          if (Number(still[0]?.n ?? 0) === 0) return false
          const live = yield* sql<{ blake3_hash: string }>`SELECT blake3_hash FROM artifacts WHERE run_id = ${r.run_id} AND model_name = ${r.model_name} AND file_path = ${r.file_path}`
          if (live.length > 0) return false
          yield* sql`INSERT INTO artifacts ${sql.insert({
            run_id: r.run_id,
            model_name: r.model_name,
            file_path: r.file_path,
            blake3_hash: r.blake3_hash,
            size_bytes: tomb.size_bytes,
            commit_version: tomb.commit_version,
            rows: tomb.rows,
            written_at: now
          })}`
          yield* Effect.flatMap(Checkpoints, (c) => c.after("restore-row-reinstated"))
          yield* sql`UPDATE tombstones SET restored_at = ${now}, restore_plan_id = ${planId} WHERE run_id = ${r.run_id} AND model_name = ${r.model_name}
            AND file_path = ${r.file_path} AND evicted_at = ${tomb.evicted_at}`
          return true
        })
      )
      .pipe(Effect.mapError(failed))
    if (!stamped) return refuse("reinstate", "lost the race to reinstate the ledger row (the tombstone or the row changed); verified bytes were left in place")
    return { _tag: "Restored", bytesWritten: created.right } as RestoreOutcome
  }))

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i

/**
 * The object store a `storage_prefix` names and the key of `filePath` in it: `s3://`, `gs://`,
 * `az://`, `file://` as written, a bare directory relative to the project. A path that is not
 * strictly under the prefix at a `/` boundary (or climbs with `..`) is refused, as a string.
 */
export const locateInStore = (prefix: string, filePath: string, projectRoot: string, path: Path.Path): { readonly url: string; readonly key: string } | string => {
  const scheme = SCHEME.exec(prefix)?.[1]?.toLowerCase()
  if (scheme !== undefined && !["s3", "gs", "az", "file"].includes(scheme)) {
    return `storage ${prefix} is not reachable: scheme ${scheme}:// is not supported (s3://, gs://, az://, file:// or a project directory)`
  }
  const root = prefix.replace(/\/+$/, "")
  const key = filePath.startsWith(`${root}/`) ? filePath.slice(root.length + 1) : undefined
  if (key === undefined || key.split("/").some((s) => s === "" || s === "." || s === "..")) {
    return `path ${filePath} is not inside the storage prefix ${prefix}`
  }
  const url = scheme !== undefined ? `${root}/` : `${pathToFileURL(path.resolve(projectRoot, root)).href}/`
  return { url, key }
}
