import type { ArtifactRow, ProvenanceRow } from "../Runner/RunStore"
import { keyOf, type CheckedSnapshot, type LedgerSnapshot } from "./ledger"

export const CHECKS = ["recipe_recorded", "recipe_produces_output", "replayable", "unreferenced", "policy_allows", "age_threshold"] as const
export type CheckName = (typeof CHECKS)[number]

export interface CheckResult {
  readonly check: CheckName
  readonly passed: boolean
  readonly detail: string
}

const DAY_MS = 86_400_000

/** The recorded recipe, if its canonical JSON deserializes into something replayable. */
export const parseRecipe = (json: string): { readonly sql: string; readonly strategy: { readonly type: string; readonly storage_prefix?: string; readonly partition_columns?: ReadonlyArray<string> } } | undefined => {
  try {
    const value = JSON.parse(json) as { sql?: unknown; strategy?: { type?: unknown } }
    if (typeof value.sql !== "string" || typeof value.strategy?.type !== "string") return undefined
    return value as never
  } catch {
    return undefined
  }
}

const recipeCache = new WeakMap<CheckedSnapshot, Map<string, ReturnType<typeof parseRecipe>>>()

/** Recipes repeat across runs: each distinct JSON text is parsed once per snapshot. */
const recipeOf = (json: string, snapshot: CheckedSnapshot) => {
  let cache = recipeCache.get(snapshot)
  if (cache === undefined) recipeCache.set(snapshot, (cache = new Map()))
  if (!cache.has(json)) cache.set(json, parseRecipe(json))
  return cache.get(json)
}

const replayable = (p: ProvenanceRow, live: ReadonlyMap<string, number>, snapshot: CheckedSnapshot): CheckResult => {
  const recipe = recipeOf(p.model_canonical_json, snapshot)
  if (recipe === undefined) return { check: "replayable", passed: false, detail: "recorded recipe does not deserialize" }
  const unresolved = p.upstreams.filter((u) => u.kind !== "content" || u.blake3_hash === undefined || !live.has(u.blake3_hash))
  if (unresolved.length > 0) {
    return { check: "replayable", passed: false, detail: `upstream(s) do not resolve to live content: ${unresolved.map((u) => u.upstream_key).join(", ")}` }
  }
  // Fail closed: a text the scan never saw counts as volatile.
  const scan = snapshot.determinism.get(recipe.sql) ?? { volatile: true as const, reason: "SQL was not scanned" }
  if (scan.volatile) return { check: "replayable", passed: false, detail: `nondeterministic construct (${scan.reason}) — retained as unique history` }
  return { check: "replayable", passed: true, detail: `recipe deserializes, ${p.upstreams.length} upstream(s) resolve, SQL is deterministic` }
}

const refcountCache = new WeakMap<LedgerSnapshot, ReadonlyMap<string, number>>()

/** Ledger rows per hash, computed once per snapshot (the inventory checks every candidate against it). */
const refcountsOf = (snapshot: LedgerSnapshot): ReadonlyMap<string, number> => {
  const cached = refcountCache.get(snapshot)
  if (cached !== undefined) return cached
  const counts = new Map<string, number>()
  for (const a of snapshot.artifacts) counts.set(a.blake3_hash, (counts.get(a.blake3_hash) ?? 0) + 1)
  refcountCache.set(snapshot, counts)
  return counts
}

/** The six checks, in order, for one exact ledger row; all fail closed. */
export const deriveChecks = (row: ArtifactRow, snapshot: CheckedSnapshot, minAgeDays: number, nowMs: number): ReadonlyArray<CheckResult> => {
  const p = snapshot.provenance.get(keyOf(row.run_id, row.model_name))
  const refcounts = refcountsOf(snapshot)
  const refcount = refcounts.get(row.blake3_hash) ?? 0
  const none = "no provenance recorded for this run and model"
  const ageDays = Math.floor((nowMs - Date.parse(row.written_at)) / DAY_MS)
  const binds =
    p === undefined || p.output_blake3.length === 0
      ? false
      : p.output_path.length === 0
        ? p.output_blake3.includes(row.blake3_hash)
        : p.output_blake3.some((h, i) => h === row.blake3_hash && p.output_path[i] === row.file_path)
  return [
    p === undefined
      ? { check: "recipe_recorded", passed: false, detail: none }
      : p.proof_class === "strong"
        ? { check: "recipe_recorded", passed: true, detail: "provenance recorded with a strong input closure" }
        : { check: "recipe_recorded", passed: false, detail: "input closure is weak (proof_class=heuristic)" },
    p === undefined
      ? { check: "recipe_produces_output", passed: false, detail: none }
      : binds
        ? { check: "recipe_produces_output", passed: true, detail: "provenance binds this hash and path" }
        : { check: "recipe_produces_output", passed: false, detail: "provenance records a DIFFERENT output" },
    p === undefined ? { check: "replayable", passed: false, detail: none } : replayable(p, refcounts, snapshot),
    refcount === 1
      ? { check: "unreferenced", passed: true, detail: "refcount 1" }
      : { check: "unreferenced", passed: false, detail: refcount === 0 ? "row vanished mid-scan" : `shared bytes: ${refcount} ledger references` },
    { check: "policy_allows", passed: true, detail: "no gc-scoped holds; deny rules are enforced at apply by the policy gate" },
    Number.isNaN(ageDays)
      ? { check: "age_threshold", passed: false, detail: "written_at does not parse" }
      : ageDays >= minAgeDays
        ? { check: "age_threshold", passed: true, detail: `written ${ageDays} day(s) ago >= ${minAgeDays}` }
        : { check: "age_threshold", passed: false, detail: `written ${ageDays} day(s) ago < ${minAgeDays}` }
  ]
}

/** One candidate per distinct hash, represented by its newest row; newest first. */
export const candidatesOf = (artifacts: ReadonlyArray<ArtifactRow>): ReadonlyArray<ArtifactRow> => {
  const byHash = new Map<string, ArtifactRow>()
  const newer = (a: ArtifactRow, b: ArtifactRow) =>
    a.written_at !== b.written_at ? a.written_at > b.written_at : a.run_id !== b.run_id ? a.run_id < b.run_id : a.model_name < b.model_name
  for (const a of artifacts) {
    const cur = byHash.get(a.blake3_hash)
    if (cur === undefined || newer(a, cur)) byHash.set(a.blake3_hash, a)
  }
  return [...byHash.values()].sort((a, b) =>
    a.written_at !== b.written_at ? (a.written_at > b.written_at ? -1 : 1) : a.blake3_hash < b.blake3_hash ? -1 : 1
  )
}
