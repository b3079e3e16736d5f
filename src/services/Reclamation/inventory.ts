/**
 * Fast gc inventory: SQLite picks one row per hash, counts references and joins provenance and
 * durations, so JavaScript only sees candidates. The plain reference is `readCheckedSnapshot` +
 * `inventory` in commands/gcDerivable.ts; test/reclaim/inventory.test.ts compares the two.
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import type { GcCandidate } from "../../schemas/reclaim"
import type { UpstreamRecord } from "../Runner/RunStore"
import { RunStoreFailed } from "../Runner/RunStore"
import { type CheckResult, parseRecipe } from "./checks"
import { type Determinism, scanDeterminism } from "./determinism"

const failed = (e: SqlError) => new RunStoreFailed({ detail: e.message })
const DAY_MS = 86_400_000

// Newest row per hash (ties: run_id, model_name, then ledger order), as `candidatesOf` picks it.
const CANDIDATES = `WITH ranked AS (
  SELECT rowid AS rid, run_id, model_name, file_path, blake3_hash, size_bytes, written_at,
    count(*) OVER (PARTITION BY blake3_hash) AS refcount,
    row_number() OVER (PARTITION BY blake3_hash ORDER BY written_at DESC, run_id, model_name, rowid) AS pick
  FROM artifacts)
SELECT r.run_id, r.model_name, r.file_path, r.blake3_hash, r.size_bytes, r.written_at, r.refcount,
  p.recipe_hash, p.proof_class, p.upstreams_json, p.output_blake3_json, p.output_path_json, m.duration_ms
FROM ranked r
LEFT JOIN provenance p ON p.run_id = r.run_id AND p.model_name = r.model_name
LEFT JOIN run_models m ON m.run_id = r.run_id AND m.model_name = r.model_name AND m.output_hash IS NOT NULL
WHERE r.pick = 1`

type CandidateTuple = [
  run_id: string,
  model_name: string,
  file_path: string,
  blake3_hash: string,
  size_bytes: number,
  written_at: string,
  refcount: number,
  recipe_hash: string | null,
  proof_class: string | null,
  upstreams_json: string | null,
  output_blake3_json: string | null,
  output_path_json: string | null,
  duration_ms: number | null
]

type Recipe = ReturnType<typeof parseRecipe>

/**
 * Recipe JSON is read once per recipe hash (min = max means every row agrees) and parsed once per
 * text; a hash whose rows disagree (a damaged store) is read per row, as the plain snapshot does.
 */
const readRecipes = (sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    const byHash = new Map<string, Recipe>()
    const damaged = new Set<string>()
    const parsed = new Map<string, Recipe>()
    const parseOnce = (json: string) => {
      if (!parsed.has(json)) parsed.set(json, parseRecipe(json))
      return parsed.get(json)
    }
    const groups = yield* sql`SELECT recipe_hash, min(model_canonical_json), max(model_canonical_json) = min(model_canonical_json) FROM provenance GROUP BY recipe_hash`.values
    for (const [hash, json, same] of groups as ReadonlyArray<[string, string, number]>) {
      if (same === 1) byHash.set(hash, parseOnce(json))
      else damaged.add(hash)
    }
    const perRow = new Map<string, Recipe>()
    if (damaged.size > 0) {
      const rows = yield* sql`SELECT run_id, model_name, model_canonical_json FROM provenance WHERE recipe_hash IN ${sql.in([...damaged])}`.values
      for (const [runId, model, json] of rows as ReadonlyArray<[string, string, string]>) perRow.set(`${runId}|${model}`, parseOnce(json))
    }
    return (runId: string, model: string, recipeHash: string): Recipe => (damaged.has(recipeHash) ? perRow.get(`${runId}|${model}`) : byHash.get(recipeHash))
  })

const NONE = "no provenance recorded for this run and model"

const replayable = (recipe: Recipe, upstreamsJson: string, live: ReadonlySet<string>, determinism: ReadonlyMap<string, Determinism>): CheckResult => {
  if (recipe === undefined) return { check: "replayable", passed: false, detail: "recorded recipe does not deserialize" }
  const upstreams = JSON.parse(upstreamsJson) as ReadonlyArray<UpstreamRecord>
  const unresolved = upstreams.filter((u) => u.kind !== "content" || u.blake3_hash === undefined || !live.has(u.blake3_hash))
  if (unresolved.length > 0) {
    return { check: "replayable", passed: false, detail: `upstream(s) do not resolve to live content: ${unresolved.map((u) => u.upstream_key).join(", ")}` }
  }
  const scan = determinism.get(recipe.sql) ?? { volatile: true as const, reason: "SQL was not scanned" }
  if (scan.volatile) return { check: "replayable", passed: false, detail: `nondeterministic construct (${scan.reason}) — retained as unique history` }
  return { check: "replayable", passed: true, detail: `recipe deserializes, ${upstreams.length} upstream(s) resolve, SQL is deterministic` }
}

const binds = (t: CandidateTuple): boolean => {
  const hashes = JSON.parse(t[10] ?? "[]") as ReadonlyArray<string>
  if (hashes.length === 0) return false
  const paths = JSON.parse(t[11] ?? "[]") as ReadonlyArray<string>
  return paths.length === 0 ? hashes.includes(t[3]) : hashes.some((h, i) => h === t[3] && paths[i] === t[2])
}

/** Every candidate with its six checks, newest first: the same answer as the plain inventory. */
export const readInventory = (minAgeDays: number, nowMs: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [rows, recipeOf] = yield* sql.withTransaction(
      Effect.all([sql.unsafe(CANDIDATES).values as Effect.Effect<ReadonlyArray<ReadonlyArray<unknown>>, SqlError>, readRecipes(sql)])
    )
    const tuples = rows as unknown as ReadonlyArray<CandidateTuple>
    const live = new Set(tuples.map((t) => t[3]))
    const recipes = tuples.map((t) => (t[7] === null ? undefined : recipeOf(t[0], t[1], t[7])))
    const determinism = yield* scanDeterminism(recipes.flatMap((r) => (r === undefined ? [] : [r.sql])))
    const candidates = tuples.map((t, i): GcCandidate => {
      const [runId, model, filePath, hash, size, writtenAt, refcount, recipeHash, proofClass, upstreamsJson] = t
      const hasProvenance = recipeHash !== null
      const ageDays = Math.floor((nowMs - Date.parse(writtenAt)) / DAY_MS)
      const checks: Array<CheckResult> = [
        !hasProvenance
          ? { check: "recipe_recorded", passed: false, detail: NONE }
          : proofClass === "strong"
            ? { check: "recipe_recorded", passed: true, detail: "provenance recorded with a strong input closure" }
            : { check: "recipe_recorded", passed: false, detail: "input closure is weak (proof_class=heuristic)" },
        !hasProvenance
          ? { check: "recipe_produces_output", passed: false, detail: NONE }
          : binds(t)
            ? { check: "recipe_produces_output", passed: true, detail: "provenance binds this hash and path" }
            : { check: "recipe_produces_output", passed: false, detail: "provenance records a DIFFERENT output" },
        !hasProvenance ? { check: "replayable", passed: false, detail: NONE } : replayable(recipes[i], upstreamsJson ?? "[]", live, determinism),
        refcount === 1
          ? { check: "unreferenced", passed: true, detail: "refcount 1" }
          : { check: "unreferenced", passed: false, detail: `shared bytes: ${refcount} ledger references` },
        { check: "policy_allows", passed: true, detail: "no gc-scoped holds; deny rules are enforced at apply by the policy gate" },
        Number.isNaN(ageDays)
          ? { check: "age_threshold", passed: false, detail: "written_at does not parse" }
          : ageDays >= minAgeDays
            ? { check: "age_threshold", passed: true, detail: `written ${ageDays} day(s) ago >= ${minAgeDays}` }
            : { check: "age_threshold", passed: false, detail: `written ${ageDays} day(s) ago < ${minAgeDays}` }
      ]
      return {
        model_name: model,
        run_id: runId,
        blake3_hash: hash,
        file_path: filePath,
        size_bytes: Number(size),
        written_at: writtenAt,
        refcount: Number(refcount),
        ...(hasProvenance ? { recipe_id: recipeHash, input_proof_class: proofClass! } : {}),
        rebuild_cost: { estimated: true as const, source_duration_ms: t[12] === null ? null : Number(t[12]) },
        derivable: checks.every((c) => c.passed),
        checks
      }
    })
    // Same order as the plain inventory, compared in JavaScript (SQLite's collation is bytewise).
    return candidates.sort((a, b) =>
      a.written_at !== b.written_at ? (a.written_at > b.written_at ? -1 : 1) : a.blake3_hash < b.blake3_hash ? -1 : 1
    )
  }).pipe(Effect.mapError(failed))
