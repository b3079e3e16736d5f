// gc --derivable inventory (the six checks over every live artifact) at 10k and 100k artifacts,
// against a raw decoded read of the artifact ledger taken in the same run as the baseline; the
// plain reference inventory (snapshot + checks in JavaScript) is timed once beside the fast one.
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gcInventory, inventory } from "../src/commands/gcDerivable"
import { ProjectContext } from "../src/services/ProjectConfig/ProjectContext"
import { readCheckedSnapshot, readSnapshot } from "../src/services/Reclamation/ledger"
import * as StateStore from "../src/services/StateStore/StateStore"
import { Warehouse } from "../src/services/Warehouse/Warehouse"
import { printTable } from "./support"

const MODELS = 100
const TARGET_MS = 2000
const DAY = 86_400_000
const now = Date.parse("2026-11-01T00:00:00Z")

const hex = (n: number, salt: string) => (salt + n.toString(16)).padStart(64, "0").slice(-64)

/** `artifacts` rows spread over 100 models and 60 days; 5% share bytes with another row; one recipe SQL per model unless `distinctSql`. */
const seed = (artifacts: number, distinctSql: boolean) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const runs = Math.ceil(artifacts / MODELS)
    yield* sql.withTransaction(
      Effect.gen(function* () {
        for (let r = 0; r < runs; r++) {
          const runId = `run-${String(r).padStart(6, "0")}`
          const at = new Date(now - 60 * DAY + (r * 60 * DAY) / runs).toISOString()
          yield* sql`INSERT INTO runs ${sql.insert({ run_id: runId, started_at: at, finished_at: at, status: "success", trigger: "bench", models_total: MODELS, models_failed: 0, models_skipped: 0 })}`
          const n = Math.min(MODELS, artifacts - r * MODELS)
          const models = Array.from({ length: n }, (_, m) => {
            const i = r * MODELS + m
            const hash = i % 20 === 19 ? hex(i - 1, "a") : hex(i, "a")
            const body = distinctSql ? `SELECT ${i} AS id, lower(v) AS v FROM w.s.src${m} ORDER BY id` : `SELECT id, lower(v) AS v, amount * 2 AS amount FROM w.s.src${m} WHERE amount > 0 ORDER BY id`
            const path = `artifacts/m${m}/${hash}.parquet`
            const recipe = `{"contract":null,"name":"m${m}","sql":${JSON.stringify(body)},"strategy":{"partition_columns":[],"storage_prefix":"artifacts/m${m}","type":"content_addressed"},"target":{"catalog":"w","schema":"s","table":"m${m}"},"tests":[]}`
            // The recipe hash is the hash of the canonical recipe: shared by every run of an unchanged model.
            return { runId, model: `m${m}`, hash, path, recipe, recipeHash: distinctSql ? hex(i, "7") : hex(m, "7"), at, i }
          })
          yield* sql`INSERT INTO run_models ${sql.insert(models.map((x, position) => ({ run_id: runId, model_name: x.model, position, status: "success", strategy: "content_addressed", started_at: x.at, finished_at: x.at, duration_ms: 100 + (x.i % 900), rows_affected: 10, attempts: 1, sql_hash: hex(x.i, "5"), recipe_hash: x.recipeHash, output_hash: x.hash })))}`
          yield* sql`INSERT INTO artifacts ${sql.insert(models.map((x) => ({ run_id: runId, model_name: x.model, file_path: x.path, blake3_hash: x.hash, size_bytes: 4096 + x.i, commit_version: r + 1, rows: 10, written_at: x.at })))}`
          yield* sql`INSERT INTO provenance ${sql.insert(models.map((x) => ({ run_id: runId, model_name: x.model, recipe_hash: x.recipeHash, input_hash: hex(x.i, "9"), model_canonical_json: x.recipe, upstreams_json: "[]", output_blake3_json: JSON.stringify([x.hash]), output_path_json: JSON.stringify([x.path]), proof_class: "strong", recorded_at: x.at })))}`
        }
      })
    )
  })

const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const t0 = performance.now()
    const value = yield* effect
    return [value, performance.now() - t0] as const
  })

/** Best of `times`, so a shared machine's hiccup is not the figure. */
const best = <A, E, R>(effect: Effect.Effect<A, E, R>, times = 3) =>
  Effect.gen(function* () {
    let ms = Infinity
    let value: A | undefined
    for (let k = 0; k < times; k++) {
      const [v, t] = yield* timed(effect)
      value = v
      ms = Math.min(ms, t)
    }
    return [value as A, ms] as const
  })

const rawRead = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT * FROM artifacts`)

const measure = (artifacts: number, distinctSql: boolean) => {
  const dir = mkdtempSync(join(tmpdir(), "pcli-bench-gc-"))
  const path = join(dir, "state.sqlite")
  const project = ProjectContext.of({ config: Option.none(), root: dir, modelsDir: join(dir, "models"), state: { path, createParent: true } })
  return Effect.gen(function* () {
    yield* seed(artifacts, distinctSql)
    const times = distinctSql ? 1 : 3
    const [, rawMs] = yield* best(rawRead, times)
    const [, snapshotMs] = yield* best(readSnapshot, times)
    const [checked, checkedMs] = yield* best(readCheckedSnapshot, times)
    // The plain reference (whole snapshot, then checks in JavaScript), once: it is the slow one.
    const [, plainMs] = yield* timed(Effect.map(readCheckedSnapshot, (s) => inventory(s, 7, now)))
    const [report, inventoryMs] = yield* best(gcInventory({ derivable: true, dryRun: true, minAgeDays: 7 }), times)
    console.error(`measured ${artifacts}${distinctSql ? " distinct" : ""}: inventory ${inventoryMs.toFixed(0)} ms`)
    return {
      label: `${artifacts.toLocaleString()}${distinctSql ? " (every recipe SQL distinct)" : ""}`,
      artifacts,
      candidates: report.artifact_count,
      derivable: report.derivable_count,
      distinctSql: checked.determinism.size,
      rawMs,
      snapshotMs,
      scanMs: checkedMs - snapshotMs,
      plainMs,
      inventoryMs
    }
  }).pipe(
    // A store with no environment tables never opens the warehouse.
    Effect.provideService(Warehouse, { kind: "embedded", execute: () => Effect.die("the gc bench has no environments") }),
    Effect.provideService(ProjectContext, project),
    Effect.provide(StateStore.layer(path, "write").pipe(Layer.provide(NodeContext.layer)))
  )
}

const program = Effect.gen(function* () {
  const results = []
  for (const [n, distinct] of [[10_000, false], [100_000, false], [10_000, true]] as const) results.push(yield* measure(n, distinct))
  printTable(
    ["artifacts", "candidates", "derivable", "distinct SQL", "raw ledger read ms (baseline)", "snapshot ms", "parser scan ms", "plain inventory ms", "inventory ms", "ratio", "plain / fast", `≤ ${TARGET_MS} ms`],
    results.map((r) => [
      r.label,
      r.candidates.toLocaleString(),
      r.derivable.toLocaleString(),
      r.distinctSql.toLocaleString(),
      r.rawMs.toFixed(0),
      r.snapshotMs.toFixed(0),
      r.scanMs.toFixed(0),
      r.plainMs.toFixed(0),
      r.inventoryMs.toFixed(0),
      (r.inventoryMs / r.rawMs).toFixed(1),
      (r.plainMs / r.inventoryMs).toFixed(1),
      r.inventoryMs <= TARGET_MS ? "yes" : "NO"
    ])
  )
  console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`)
})

Effect.runPromise(program).catch((e) => {
  console.error(e)
  process.exit(1)
})
