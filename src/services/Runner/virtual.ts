import { createHash } from "node:crypto"
import { Clock, Effect } from "effect"
import type { TargetBlock } from "../../schemas/model"
import type { CompiledModel, CompiledProject } from "../Project/compile"
import { Warehouse, type WarehouseService } from "../Warehouse/Warehouse"
import { canonicalJsonFast } from "../Artifacts/artifacts"
import { type EnvironmentModel, PRODUCTION } from "./environmentRows"
import { fingerprintOf } from "./incremental"
import { quoteIdent } from "./tests"

/** The internal schema that holds every physical table; models are seen through views (decision 37). */
export const PHYSICAL_SCHEMA = "pcli_physical"

/** Content-addressed models are already views over their Parquet file: they have no physical table. */
export const isVirtual = (model: CompiledModel) => model.strategy.type !== "content_addressed"

/** Incremental and time-interval models append: a forward-only change keeps their table. */
const appends = (model: CompiledModel) => model.strategy.type === "incremental" || model.strategy.type === "time_interval"

/**
 * Each model's environment fingerprint: its own fingerprint (SQL, sidecar, contract, strategy,
 * target) and its upstream models' environment fingerprints, so a change reaches every downstream table.
 */
export const environmentFingerprints = (project: CompiledProject): ReadonlyMap<string, string> => {
  const out = new Map<string, string>()
  for (const name of project.order) {
    const model = project.models.get(name)!
    const hash = createHash("sha256").update(fingerprintOf(model))
    for (const u of model.upstream) hash.update(`|${u}=${out.get(u) ?? "none"}`)
    out.set(name, hash.digest("hex"))
  }
  return out
}

/** What a change must touch to be breaking for an appending model: its strategy, target and contract. */
export const tableKeyOf = (model: CompiledModel): string =>
  createHash("sha256")
    .update(canonicalJsonFast({ strategy: model.strategy, target: model.target, contract: model.definition.contract ?? null }))
    .digest("hex")

/** The physical table a fresh build of the model under `fingerprint` writes. */
export const freshPhysical = (model: CompiledModel, fingerprint: string): string =>
  `${PHYSICAL_SCHEMA}.${model.target.schema}__${model.target.table}__${fingerprint.slice(0, 16)}`.toLowerCase()

/**
 * The physical table a build of the model writes in an environment that holds `current`: the same
 * table when it already holds this fingerprint, or (appending models) when the change is forward-only
 * in production; otherwise a fresh one named by the fingerprint.
 */
export const chooseTable = (
  model: CompiledModel,
  current: EnvironmentModel | undefined,
  fingerprint: string,
  environment: string
): string => {
  if (current !== undefined && current.fingerprint === fingerprint) return current.physical
  const forwardOnly = environment === PRODUCTION && appends(model) && current !== undefined && current.table_key === tableKeyOf(model)
  return forwardOnly ? current.physical : freshPhysical(model, fingerprint)
}

/** A physical table as a target block (the model's catalog, the physical schema). */
export const physicalTarget = (model: CompiledModel, physical: string): TargetBlock => {
  const dot = physical.indexOf(".")
  return { catalog: model.target.catalog, schema: physical.slice(0, dot), table: physical.slice(dot + 1) }
}

/** Where an environment's view of the model lives: production at the target, a branch in `<schema>__<branch>`. */
export const viewTarget = (model: CompiledModel, environment: string): TargetBlock =>
  environment === PRODUCTION ? model.target : { ...model.target, schema: `${model.target.schema}__${environment}` }

export const relationName = (target: TargetBlock, kind: WarehouseService["kind"]): string =>
  kind === "embedded"
    ? `${quoteIdent(target.schema)}.${quoteIdent(target.table)}`
    : `${quoteIdent(target.catalog)}.${quoteIdent(target.schema)}.${quoteIdent(target.table)}`

/** The statement that points a view at a physical table. */
export const viewStatement = (view: TargetBlock, physical: TargetBlock, kind: WarehouseService["kind"]) =>
  `CREATE OR REPLACE VIEW ${relationName(view, kind)} AS SELECT * FROM ${relationName(physical, kind)}`

export const schemaStatement = (target: TargetBlock, kind: WarehouseService["kind"]) =>
  `CREATE SCHEMA IF NOT EXISTS ${kind === "embedded" ? quoteIdent(target.schema) : `${quoteIdent(target.catalog)}.${quoteIdent(target.schema)}`}`

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`

/** In one transaction where the warehouse has them (embedded); statement by statement on a remote one. */
export const atomically = (wh: WarehouseService, statements: ReadonlyArray<string>) =>
  wh.kind === "embedded"
    ? wh.execute(["BEGIN TRANSACTION", ...statements, "COMMIT"].join(";\n")).pipe(
        Effect.tapError(() => Effect.ignore(wh.execute("ROLLBACK")))
      )
    : Effect.forEach(statements, (s) => wh.execute(s), { discard: true })

/**
 * A warehouse built before environments holds each model's data in a base table at its target.
 * Its first run moves each such table into the physical schema under the model's fingerprint and
 * puts a view in its place, in one transaction per model: no row is lost, and the model then
 * counts as built under that fingerprint (its data is what the last build left).
 */
export const migrateLegacyTargets = (
  project: CompiledProject,
  current: ReadonlyMap<string, EnvironmentModel>,
  fingerprints: ReadonlyMap<string, string>
): Effect.Effect<ReadonlyArray<EnvironmentModel>, never, Warehouse> =>
  Effect.gen(function* () {
    const unmapped = [...project.models.values()].filter((m) => isVirtual(m) && !current.has(m.name))
    if (unmapped.length === 0) return []
    const wh = yield* Warehouse
    // A warehouse that cannot answer now moves nothing: each model then meets its own failure (a legacy table makes its view fail, no row lost).
    const found = yield* wh
      .execute(`SELECT lower(table_schema), lower(table_name) FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema <> ${literal(PHYSICAL_SCHEMA)}`)
      .pipe(Effect.orElseSucceed(() => ({ columns: [], rows: [] })))
    const tables = new Set(found.rows.map((r) => `${String(r[0])}.${String(r[1])}`))
    const legacy = unmapped.filter((m) => tables.has(`${m.target.schema}.${m.target.table}`.toLowerCase()))
    const now = new Date(yield* Clock.currentTimeMillis).toISOString()
    const moved: Array<EnvironmentModel> = []
    for (const model of legacy) {
      const fingerprint = fingerprints.get(model.name)!
      const physical = freshPhysical(model, fingerprint)
      const to = physicalTarget(model, physical)
      const move = Effect.zipRight(
        wh.execute(schemaStatement(to, wh.kind)),
        atomically(wh, [
          `CREATE TABLE ${relationName(to, wh.kind)} AS SELECT * FROM ${relationName(model.target, wh.kind)}`,
          `DROP TABLE ${relationName(model.target, wh.kind)}`,
          viewStatement(model.target, to, wh.kind)
        ])
      )
      // The tables moved so far are recorded whatever happens to the next one.
      if ((yield* Effect.either(move))._tag === "Left") return moved
      moved.push({ model_name: model.name, physical, fingerprint, table_key: tableKeyOf(model), updated_at: now })
    }
    return moved
  })
