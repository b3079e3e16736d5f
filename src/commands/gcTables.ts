import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { GcTableCandidate, GcTableDrop } from "../schemas/reclaim"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { scanDeterminism } from "../services/Reclamation/determinism"
import { DEFAULT_KEEP_PROMOTIONS, readCatalogFacts, readStoreFacts, recipeSqls, tableInventory } from "../services/Reclamation/tables"
import { RunStoreFailed } from "../services/Runner/RunStore"
import { Warehouse } from "../services/Warehouse/Warehouse"

/** `[gc] keep_promotions`: the latest promotions whose tables a rollback needs (default 2). */
export const keepPromotionsOf = Effect.map(ProjectContext, ({ config }) =>
  Option.isSome(config) ? (config.value.settings.gc?.keep_promotions ?? DEFAULT_KEEP_PROMOTIONS) : DEFAULT_KEEP_PROMOTIONS
)

/** A store that never recorded an environment table has none to judge: the warehouse is not opened. */
const knowsTables = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ n: number }>`SELECT (SELECT count(*) FROM environment_models) + (SELECT count(*) FROM physical_tables) AS n`.pipe(
    Effect.map((rows) => Number(rows[0]?.n ?? 0) > 0),
    Effect.mapError((e) => new RunStoreFailed({ detail: e.message }))
  )
)

/** Every physical table in the warehouse's catalog with its six checks; undefined when the project has no environments. */
export const tableCandidates = (minAgeDays: number, nowMs: number) =>
  Effect.gen(function* () {
    if (!(yield* knowsTables)) return undefined
    const keep = yield* keepPromotionsOf
    const store = yield* readStoreFacts(keep)
    const catalog = yield* readCatalogFacts(yield* Warehouse)
    const determinism = yield* scanDeterminism(recipeSqls(store))
    return { keep, candidates: tableInventory(store, catalog, determinism, minAgeDays, nowMs) }
  })

/** The planned drop of a table every check passed (its registry row is set: recipe_recorded passed). */
export const dropOf = (c: GcTableCandidate): GcTableDrop => ({
  kind: "physical_table",
  physical: c.physical,
  model_name: c.model_name!,
  fingerprint: c.fingerprint!,
  run_id: c.run_id!,
  recipe_hash: c.recipe_hash!,
  built_at: c.built_at!,
  estimated_rows: c.estimated_rows
})
