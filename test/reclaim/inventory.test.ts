import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect, ManagedRuntime } from "effect"
import * as fc from "fast-check"
import { afterAll, describe, expect, it } from "vitest"
import { inventory } from "../../src/commands/gcDerivable"
import { readInventory } from "../../src/services/Reclamation/inventory"
import { readCheckedSnapshot } from "../../src/services/Reclamation/ledger"
import { migrations } from "../../src/services/StateStore/migrations"

const runtime = ManagedRuntime.make(SqliteClient.layer({ filename: ":memory:" }))
afterAll(() => runtime.dispose())

const migrated = runtime.runPromise(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    for (const m of migrations) for (const s of m.statements) yield* sql.unsafe(s)
  })
)

const DAY = 86_400_000
const NOW = Date.parse("2026-11-01T00:00:00Z")

// Small pools so hashes, runs and recipes collide: shared bytes, ties, damaged recipe hashes.
const runId = fc.constantFrom("r1", "r2", "r3", "r4")
const model = fc.constantFrom("a", "b", "c")
const hash = fc.constantFrom("h1", "h2", "h3", "h4", "h5", "h6")
const path = fc.constantFrom("p1.parquet", "p2.parquet")
// Few distinct times, so rows of one hash often tie and the tie-breaks are exercised.
const writtenAt = fc.oneof(
  fc.integer({ min: 0, max: 20 }).map((d) => new Date(NOW - d * DAY).toISOString()),
  { weight: 3, arbitrary: fc.constantFrom("2026-10-20T00:00:00.000Z", "2026-10-30T00:00:00.000Z", "not a date") }
)
const recipeSql = fc.constantFrom("SELECT id, lower(v) AS v FROM w.s.t ORDER BY id", "SELECT random() AS r", "SELECT a FROM t LIMIT 3", "SELEC broken", "")
const recipeJson = fc.oneof(
  { weight: 4, arbitrary: recipeSql.map((sql) => JSON.stringify({ name: "m", sql, strategy: { type: "content_addressed" } })) },
  { weight: 1, arbitrary: fc.constantFrom("{not json", JSON.stringify({ sql: "SELECT 1 AS x" }), "") }
)
const upstream = fc.oneof(
  hash.map((h) => ({ kind: "content", upstream_key: `w.s.${h}`, blake3_hash: h })),
  fc.constant({ kind: "watermark", upstream_key: "w.s.src" }),
  fc.constant({ kind: "content", upstream_key: "w.s.nohash" })
)
const artifact = fc.record({ run_id: runId, model_name: model, file_path: path, blake3_hash: hash, size_bytes: fc.nat(10_000), written_at: writtenAt })
const provenance = fc.record({
  run_id: runId,
  model_name: model,
  recipe_hash: fc.constantFrom("rc1", "rc2", "rc3"),
  model_canonical_json: recipeJson,
  upstreams: fc.array(upstream, { maxLength: 2 }),
  output_blake3: fc.array(hash, { maxLength: 2 }),
  output_path: fc.array(path, { maxLength: 2 }),
  proof_class: fc.constantFrom("strong", "heuristic")
})
const runModel = fc.record({ run_id: runId, model_name: model, duration_ms: fc.option(fc.nat(5000)), output_hash: fc.option(hash) })
const ledger = fc.record({
  artifacts: fc.uniqueArray(artifact, { maxLength: 12, selector: (a) => `${a.run_id}|${a.model_name}|${a.file_path}` }),
  provenance: fc.uniqueArray(provenance, { maxLength: 10, selector: (p) => `${p.run_id}|${p.model_name}` }),
  runModels: fc.uniqueArray(runModel, { maxLength: 10, selector: (m) => `${m.run_id}|${m.model_name}` }),
  minAgeDays: fc.integer({ min: 0, max: 15 })
})
type Ledger = typeof ledger extends fc.Arbitrary<infer L> ? L : never

const load = (l: Ledger) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    for (const table of ["artifacts", "provenance", "run_models", "runs"]) yield* sql.unsafe(`DELETE FROM ${table}`)
    for (const run of ["r1", "r2", "r3", "r4"]) {
      yield* sql`INSERT INTO runs ${sql.insert({ run_id: run, started_at: "2026-10-01T00:00:00Z", finished_at: "2026-10-01T00:00:01Z", status: "success", trigger: "test", models_total: 3, models_failed: 0, models_skipped: 0 })}`
    }
    for (const a of l.artifacts) yield* sql`INSERT INTO artifacts ${sql.insert({ ...a, commit_version: 1, rows: 1 })}`
    for (const p of l.provenance) {
      yield* sql`INSERT INTO provenance ${sql.insert({
        run_id: p.run_id,
        model_name: p.model_name,
        recipe_hash: p.recipe_hash,
        input_hash: "in",
        model_canonical_json: p.model_canonical_json,
        upstreams_json: JSON.stringify(p.upstreams),
        output_blake3_json: JSON.stringify(p.output_blake3),
        output_path_json: JSON.stringify(p.output_path),
        proof_class: p.proof_class,
        recorded_at: "2026-10-01T00:00:00Z"
      })}`
    }
    for (const [position, m] of l.runModels.entries()) {
      yield* sql`INSERT INTO run_models ${sql.insert({ ...m, position, status: "success", strategy: "content_addressed", attempts: 1, sql_hash: "s", recipe_hash: "rc1" })}`
    }
  })

describe("fast gc inventory against the plain reference", () => {
  it("gives the same candidates, checks and order on generated ledgers", async () => {
    await migrated
    await fc.assert(
      fc.asyncProperty(ledger, async (l) => {
        const [plain, fast] = await runtime.runPromise(
          Effect.gen(function* () {
            yield* load(l)
            const plain = inventory(yield* readCheckedSnapshot, l.minAgeDays, NOW)
            const fast = yield* readInventory(l.minAgeDays, NOW)
            return [plain, fast] as const
          })
        )
        expect(fast).toStrictEqual(plain)
      }),
      { numRuns: 150 }
    )
  }, 120_000)
})
