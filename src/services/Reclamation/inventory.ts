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
import { type StateBackend, stateBackend } from "../StateStore/backend"
import { type CheckResult, parseRecipe } from "./checks"
import { type Determinism, scanDeterminism } from "./determinism"

const failed = (e: SqlError) => new RunStoreFailed({ detail: e.message })
const DAY_MS = 86_400_000

// Provenance that names exactly this hash and path (JSON.parse gives [hash] and [path]) is sent as NULL JSON.
const bound = (backend: StateBackend) => {
  const [array, cast] = backend === "postgres" ? ["json_build_array", "::text"] : ["json_array", ""]
  return `(p.output_blake3_json = ${array}(a.blake3_hash)${cast} AND p.output_path_json = ${array}(a.file_path)${cast})`
}

// Newest row per hash (ties: run_id, model_name, then ledger order), as `candidatesOf` picks it,
// found through the hash index; provenance JSON is sent only when the common shapes do not settle it,
// and proof_class (CHECKed to strong | heuristic) as a flag: every string value sent costs.
// PostgreSQL has no rowid: a same-run, same-model twin is told apart by its file path (decision 36).
const candidatesSql = (backend: StateBackend) => {
  const BOUND = bound(backend)
  const [ne, lt] = backend === "postgres" ? ["b.file_path <> a.file_path", "b.file_path < a.file_path"] : ["b.rowid <> a.rowid", "b.rowid < a.rowid"]
  return `SELECT a.run_id, a.model_name, a.file_path, a.blake3_hash, a.size_bytes, a.written_at,
  (SELECT count(*) FROM artifacts c WHERE c.blake3_hash = a.blake3_hash) AS refcount,
  p.recipe_hash, CASE WHEN p.proof_class = 'strong' THEN 1 ELSE 0 END,
  CASE WHEN p.upstreams_json = '[]' THEN NULL ELSE p.upstreams_json END,
  CASE WHEN ${BOUND} THEN NULL ELSE p.output_blake3_json END,
  CASE WHEN ${BOUND} THEN NULL ELSE p.output_path_json END,
  m.duration_ms
FROM artifacts a
LEFT JOIN provenance p ON p.run_id = a.run_id AND p.model_name = a.model_name
LEFT JOIN run_models m ON m.run_id = a.run_id AND m.model_name = a.model_name AND m.output_hash IS NOT NULL
WHERE NOT EXISTS (SELECT 1 FROM artifacts b WHERE b.blake3_hash = a.blake3_hash AND ${ne} AND (b.written_at > a.written_at
  OR (b.written_at = a.written_at AND (b.run_id < a.run_id OR (b.run_id = a.run_id AND (b.model_name < a.model_name
  OR (b.model_name = a.model_name AND ${lt})))))))`
}

type CandidateTuple = [
  run_id: string,
  model_name: string,
  file_path: string,
  blake3_hash: string,
  size_bytes: number,
  written_at: string,
  refcount: number,
  recipe_hash: string | null,
  strong: number | null,
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
    const groups = yield* sql`SELECT recipe_hash, min(model_canonical_json), CASE WHEN max(model_canonical_json) = min(model_canonical_json) THEN 1 ELSE 0 END FROM provenance GROUP BY recipe_hash`.values
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

// Most checks repeat word for word across candidates: shared (read-only) results keep 100k rows off the heap.
const fixed = (check: CheckResult["check"], passed: boolean, detail: string): CheckResult => Object.freeze({ check, passed, detail })
const NO_RECIPE = fixed("recipe_recorded", false, NONE)
const STRONG = fixed("recipe_recorded", true, "provenance recorded with a strong input closure")
const WEAK = fixed("recipe_recorded", false, "input closure is weak (proof_class=heuristic)")
const NO_OUTPUT = fixed("recipe_produces_output", false, NONE)
const BINDS = fixed("recipe_produces_output", true, "provenance binds this hash and path")
const OTHER_OUTPUT = fixed("recipe_produces_output", false, "provenance records a DIFFERENT output")
const NO_REPLAY = fixed("replayable", false, NONE)
const UNDESERIALIZABLE = fixed("replayable", false, "recorded recipe does not deserialize")
const REFCOUNT_ONE = fixed("unreferenced", true, "refcount 1")
const POLICY = fixed("policy_allows", true, "no gc-scoped holds; deny rules are enforced at apply by the policy gate")
const UNPARSEABLE_AGE = fixed("age_threshold", false, "written_at does not parse")

const memo = <K, V>(make: (k: K) => V) => {
  const cache = new Map<K, V>()
  return (k: K): V => {
    let v = cache.get(k)
    if (v === undefined) cache.set(k, (v = make(k)))
    return v
  }
}

const replayable = (
  recipe: Recipe,
  upstreamsJson: string | null,
  live: ReadonlySet<string>,
  determinism: ReadonlyMap<string, Determinism>,
  resolved: (upstreams: number) => CheckResult
): CheckResult => {
  if (recipe === undefined) return UNDESERIALIZABLE
  const upstreams = upstreamsJson === null ? [] : (JSON.parse(upstreamsJson) as ReadonlyArray<UpstreamRecord>)
  const unresolved = upstreams.filter((u) => u.kind !== "content" || u.blake3_hash === undefined || !live.has(u.blake3_hash))
  if (unresolved.length > 0) {
    return { check: "replayable", passed: false, detail: `upstream(s) do not resolve to live content: ${unresolved.map((u) => u.upstream_key).join(", ")}` }
  }
  const scan = determinism.get(recipe.sql) ?? { volatile: true as const, reason: "SQL was not scanned" }
  if (scan.volatile) return { check: "replayable", passed: false, detail: `nondeterministic construct (${scan.reason}) — retained as unique history` }
  return resolved(upstreams.length)
}

const binds = (t: CandidateTuple): boolean => {
  if (t[10] === null) return true
  const hashes = JSON.parse(t[10]) as ReadonlyArray<string>
  if (hashes.length === 0) return false
  const paths = JSON.parse(t[11] ?? "[]") as ReadonlyArray<string>
  return paths.length === 0 ? hashes.includes(t[3]) : hashes.some((h, i) => h === t[3] && paths[i] === t[2])
}

/** Every candidate with its six checks, newest first: the same answer as the plain inventory. */
export const readInventory = (minAgeDays: number, nowMs: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const backend = yield* stateBackend
    const [rows, recipeOf] = yield* sql.withTransaction(
      Effect.all([sql.unsafe(candidatesSql(backend)).values as Effect.Effect<ReadonlyArray<ReadonlyArray<unknown>>, SqlError>, readRecipes(sql)])
    )
    const tuples = rows as unknown as ReadonlyArray<CandidateTuple>
    const live = new Set(tuples.map((t) => t[3]))
    const recipes = tuples.map((t) => (t[7] === null ? undefined : recipeOf(t[0], t[1], t[7])))
    const determinism = yield* scanDeterminism(recipes.flatMap((r) => (r === undefined ? [] : [r.sql])))
    const resolved = memo((n: number) => fixed("replayable", true, `recipe deserializes, ${n} upstream(s) resolve, SQL is deterministic`))
    const shared = memo((n: number) => fixed("unreferenced", false, `shared bytes: ${n} ledger references`))
    const age = memo((days: number) =>
      Number.isNaN(days)
        ? UNPARSEABLE_AGE
        : days >= minAgeDays
          ? fixed("age_threshold", true, `written ${days} day(s) ago >= ${minAgeDays}`)
          : fixed("age_threshold", false, `written ${days} day(s) ago < ${minAgeDays}`)
    )
    const candidates = tuples.map((t, i): GcCandidate => {
      const [runId, model, filePath, hash, size, writtenAt, refcount, recipeHash, strong, upstreamsJson] = t
      const hasProvenance = recipeHash !== null
      const checks: Array<CheckResult> = [
        !hasProvenance ? NO_RECIPE : strong === 1 ? STRONG : WEAK,
        !hasProvenance ? NO_OUTPUT : binds(t) ? BINDS : OTHER_OUTPUT,
        !hasProvenance ? NO_REPLAY : replayable(recipes[i], upstreamsJson, live, determinism, resolved),
        refcount === 1 ? REFCOUNT_ONE : shared(refcount),
        POLICY,
        age(Math.floor((nowMs - Date.parse(writtenAt)) / DAY_MS))
      ]
      return {
        model_name: model,
        run_id: runId,
        blake3_hash: hash,
        file_path: filePath,
        size_bytes: Number(size),
        written_at: writtenAt,
        refcount: Number(refcount),
        ...(hasProvenance ? { recipe_id: recipeHash, input_proof_class: strong === 1 ? "strong" : "heuristic" } : {}),
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
