/**
 * Reclamation of the environment layer's physical tables (issue 34 item 4): what the six checks
 * read about a table, from the state store (who references it, the run that built it, the
 * promotions a rollback needs) and from the warehouse's own catalog (the table, every view's SQL).
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import type { GcTableCandidate } from "../../schemas/reclaim"
import type { PhysicalTableRow, SwappedView } from "../Runner/environmentRows"
import { RunStoreFailed } from "../Runner/RunStore"
import { PHYSICAL_SCHEMA } from "../Runner/virtual"
import type { StatementFailed, WarehouseService } from "../Warehouse/Warehouse"
import { type CheckResult, parseRecipe } from "./checks"
import type { Determinism } from "./determinism"

const failed = (e: SqlError) => new RunStoreFailed({ detail: e.message })
const DAY_MS = 86_400_000

/** How many of the latest promotions keep every table they swapped from or to (decision: see decisions.md). */
export const DEFAULT_KEEP_PROMOTIONS = 2

/** What the state store says about physical tables. */
export interface StoreFacts {
  /** The registry: the run that last built each table and its recipe. */
  readonly registry: ReadonlyMap<string, PhysicalTableRow>
  /** That run's status for the table's model (`success` for a build that finished). */
  readonly statuses: ReadonlyMap<string, string>
  /** Environments whose view points at each table. */
  readonly environments: ReadonlyMap<string, ReadonlyArray<string>>
  /** Tables a protected promotion swapped from or to, with the promotion's plan id. */
  readonly rollbackTargets: ReadonlyMap<string, string>
  readonly keepPromotions: number
}

/** What the warehouse's catalog says: the physical tables present and every view's SQL. */
export interface CatalogFacts {
  readonly tables: ReadonlyMap<string, number | null>
  readonly views: ReadonlyArray<{ readonly name: string; readonly sql: string }>
}

const lower = (s: string) => s.toLowerCase()

/** Reads the registry, the environments' references and the protected promotions (in the caller's transaction, if any). */
export const readStoreFacts = (keepPromotions: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<PhysicalTableRow & { status: string | null }>`SELECT p.*, m.status FROM physical_tables p
      LEFT JOIN run_models m ON m.run_id = p.run_id AND m.model_name = p.model_name`
    const registry = new Map<string, PhysicalTableRow>()
    const statuses = new Map<string, string>()
    for (const { status, ...row } of rows) {
      registry.set(lower(row.physical), row)
      if (status !== null) statuses.set(lower(row.physical), status)
    }
    const environments = new Map<string, Array<string>>()
    for (const r of yield* sql<{ environment: string; physical: string }>`SELECT environment, physical FROM environment_models ORDER BY environment`) {
      const key = lower(r.physical)
      environments.set(key, [...(environments.get(key) ?? []), r.environment])
    }
    const promotions = yield* sql<{ plan_id: string; views_json: string }>`SELECT plan_id, views_json FROM promotions ORDER BY applied_at DESC, plan_id DESC`
    const rollbackTargets = new Map<string, string>()
    for (const p of promotions.slice(0, keepPromotions)) {
      for (const v of JSON.parse(p.views_json) as ReadonlyArray<SwappedView>) {
        for (const t of [v.from, v.to]) if (t !== null && !rollbackTargets.has(lower(t.physical))) rollbackTargets.set(lower(t.physical), p.plan_id)
      }
    }
    return { registry, statuses, environments, rollbackTargets, keepPromotions } satisfies StoreFacts
  }).pipe(Effect.mapError(failed))

/** The catalog's physical tables and every view, read through `wh` (a session's connection inside its transaction). */
export const readCatalogFacts = (wh: WarehouseService): Effect.Effect<CatalogFacts, StatementFailed> =>
  Effect.gen(function* () {
    const schema = `'${PHYSICAL_SCHEMA}'`
    const [tables, views] =
      wh.kind === "embedded"
        ? [
            yield* wh.execute(`SELECT lower(schema_name) || '.' || lower(table_name), estimated_size FROM duckdb_tables() WHERE lower(schema_name) = ${schema}`),
            yield* wh.execute(`SELECT schema_name || '.' || view_name, sql FROM duckdb_views() WHERE NOT internal`)
          ]
        : [
            yield* wh.execute(`SELECT lower(table_schema) || '.' || lower(table_name), NULL FROM information_schema.tables WHERE lower(table_schema) = ${schema} AND table_type = 'BASE TABLE'`),
            yield* wh.execute(`SELECT table_schema || '.' || table_name, view_definition FROM information_schema.views`)
          ]
    return {
      tables: new Map(tables.rows.map((r) => [String(r[0]), r[1] === null || r[1] === undefined ? null : Number(r[1])] as const)),
      views: views.rows.map((r) => ({ name: String(r[0]), sql: String(r[1] ?? "") }))
    }
  })

/** `pcli_physical.<table>` references in SQL, however quoted or cased. */
export const physicalReferences = (sql: string): ReadonlySet<string> => {
  const text = sql.replace(/"/g, "").toLowerCase()
  const found = new Set<string>()
  for (const m of text.matchAll(new RegExp(`(?<![a-z0-9_])${PHYSICAL_SCHEMA}\\s*\\.\\s*([a-z0-9_]+)`, "g"))) found.add(`${PHYSICAL_SCHEMA}.${m[1]}`)
  return found
}

/** Incremental and time-interval tables accumulate rows build after build: no one replay reproduces them. */
const APPENDING = new Set(["incremental", "time_interval"])

/** The SQL texts whose determinism the checks need (the recorded recipes). */
export const recipeSqls = (store: StoreFacts): ReadonlyArray<string> =>
  [...store.registry.values()].flatMap((r) => {
    const recipe = parseRecipe(r.recipe_json)
    return recipe === undefined ? [] : [recipe.sql]
  })

/** The six checks for one physical table; all fail closed. */
export const tableChecks = (
  physical: string,
  store: StoreFacts,
  catalog: CatalogFacts,
  determinism: ReadonlyMap<string, Determinism>,
  minAgeDays: number,
  nowMs: number
): ReadonlyArray<CheckResult> => {
  const row = store.registry.get(physical)
  const none = "no run recorded building this table (built before pcli recorded table recipes, or never finished)"
  const status = store.statuses.get(physical)
  const recipe = row === undefined ? undefined : parseRecipe(row.recipe_json)
  const replayable = ((): CheckResult => {
    if (row === undefined) return { check: "replayable", passed: false, detail: none }
    if (recipe === undefined) return { check: "replayable", passed: false, detail: "recorded recipe does not deserialize" }
    if (APPENDING.has(row.strategy)) return { check: "replayable", passed: false, detail: `a ${row.strategy} table accumulates rows across builds — retained as unique history` }
    const missing = [...physicalReferences(recipe.sql)].filter((t) => !catalog.tables.has(t))
    if (missing.length > 0) return { check: "replayable", passed: false, detail: `recipe reads table(s) no longer present: ${missing.join(", ")}` }
    const scan = determinism.get(recipe.sql) ?? { volatile: true as const, reason: "SQL was not scanned" }
    if (scan.volatile) return { check: "replayable", passed: false, detail: `nondeterministic construct (${scan.reason}) — retained as unique history` }
    return { check: "replayable", passed: true, detail: `recipe deserializes, its SQL is deterministic; a run holding fingerprint ${row.fingerprint.slice(0, 16)} rebuilds it` }
  })()
  const readers = [
    ...(store.environments.get(physical) ?? []).map((e) => `environment ${e}'s view`),
    ...(store.rollbackTargets.has(physical) ? [`rollback target of promotion ${store.rollbackTargets.get(physical)!.slice(0, 12)} (keep_promotions = ${store.keepPromotions})`] : []),
    ...catalog.views.filter((v) => physicalReferences(v.sql).has(physical)).map((v) => `warehouse view ${v.name}`)
  ]
  const ageDays = row === undefined ? Number.NaN : Math.floor((nowMs - Date.parse(row.built_at)) / DAY_MS)
  return [
    row === undefined
      ? { check: "recipe_recorded", passed: false, detail: none }
      : { check: "recipe_recorded", passed: true, detail: `run ${row.run_id} recorded the recipe of ${row.model_name} (fingerprint ${row.fingerprint.slice(0, 16)})` },
    row === undefined
      ? { check: "recipe_produces_output", passed: false, detail: none }
      : status === "success"
        ? { check: "recipe_produces_output", passed: true, detail: `run ${row.run_id} built this table (status success)` }
        : { check: "recipe_produces_output", passed: false, detail: `run ${row.run_id} did not record a successful build of ${row.model_name}` },
    replayable,
    readers.length === 0
      ? { check: "unreferenced", passed: true, detail: "no environment's view, protected promotion or warehouse view reads it" }
      : { check: "unreferenced", passed: false, detail: `read by ${readers.join("; ")}` },
    { check: "policy_allows", passed: true, detail: "no gc-scoped holds; deny rules are enforced at apply by the policy gate" },
    Number.isNaN(ageDays)
      ? { check: "age_threshold", passed: false, detail: row === undefined ? none : "built_at does not parse" }
      : ageDays >= minAgeDays
        ? { check: "age_threshold", passed: true, detail: `built ${ageDays} day(s) ago >= ${minAgeDays}` }
        : { check: "age_threshold", passed: false, detail: `built ${ageDays} day(s) ago < ${minAgeDays}` }
  ]
}

/** Every physical table in the catalog with its six checks, newest build first (unrecorded ones last). */
export const tableInventory = (
  store: StoreFacts,
  catalog: CatalogFacts,
  determinism: ReadonlyMap<string, Determinism>,
  minAgeDays: number,
  nowMs: number
): ReadonlyArray<GcTableCandidate> =>
  [...catalog.tables]
    .map(([physical, rows]): GcTableCandidate => {
      const row = store.registry.get(physical)
      const checks = tableChecks(physical, store, catalog, determinism, minAgeDays, nowMs)
      return {
        kind: "physical_table",
        physical,
        model_name: row?.model_name ?? null,
        fingerprint: row?.fingerprint ?? null,
        run_id: row?.run_id ?? null,
        recipe_hash: row?.recipe_hash ?? null,
        built_at: row?.built_at ?? null,
        estimated_rows: rows,
        derivable: checks.every((c) => c.passed),
        checks: [...checks]
      }
    })
    .sort((a, b) => ((a.built_at ?? "") !== (b.built_at ?? "") ? ((a.built_at ?? "") > (b.built_at ?? "") ? -1 : 1) : a.physical < b.physical ? -1 : 1))

/**
 * Planned drops ordered so a table is dropped before any table its recipe reads (the reader's
 * replayable check needs them present); build times alone can tie. A cycle keeps the plan's order.
 */
export const readersFirst = <D extends { readonly physical: string }>(drops: ReadonlyArray<D>, store: StoreFacts): ReadonlyArray<D> => {
  const reads = new Map(
    drops.map((d) => {
      const recipe = parseRecipe(store.registry.get(d.physical)?.recipe_json ?? "")
      return [d.physical, recipe === undefined ? new Set<string>() : physicalReferences(recipe.sql)] as const
    })
  )
  const ordered: Array<D> = []
  let remaining = [...drops]
  while (remaining.length > 0) {
    const free = remaining.filter((d) => !remaining.some((o) => o !== d && reads.get(o.physical)!.has(d.physical)))
    const next = free.length === 0 ? remaining : free
    ordered.push(...next)
    remaining = remaining.filter((d) => !next.includes(d))
  }
  return ordered
}
