import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect, Layer, Logger, LogLevel } from "effect"
import * as path from "node:path"
import { compileModels, type CompiledProject } from "../../src/services/Project/compile"
import { loadModels } from "../../src/services/Project/models"
import { layer as runStoreLayer } from "../../src/services/Runner/RunStore"
import { migration } from "../../src/services/StateStore/migrations/002_pipeline"
import { migration as runPlanLink } from "../../src/services/StateStore/migrations/007_run_plan_link"
import { migration as incremental } from "../../src/services/StateStore/migrations/008_incremental"
import { migration as buildAttributes } from "../../src/services/StateStore/migrations/010_build_attributes"
import { migration as environments } from "../../src/services/StateStore/migrations/013_environments"
import { migration as physicalTables } from "../../src/services/StateStore/migrations/015_physical_tables"
import { layer as embeddedLayer } from "../../src/services/Warehouse/embedded"
import { StatementFailed, Warehouse } from "../../src/services/Warehouse/Warehouse"

/** SQLite state store on a temp file with the pipeline migrations (runs, incremental state, build attributes, environments, physical tables) applied. */
export const stateLayer = (root: string) => {
  const sqlite = SqliteClient.layer({ filename: path.join(root, "state.sqlite") })
  const migrated = Layer.effectDiscard(
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.forEach([...migration.statements, ...runPlanLink.statements.filter((s) => !s.includes("ledger")), ...incremental.statements, ...buildAttributes.statements, ...environments.statements, ...physicalTables.statements], (s) => sql.unsafe(s), { discard: true })
    )
  ).pipe(Layer.provide(sqlite))
  return Layer.merge(runStoreLayer.pipe(Layer.provide(sqlite)), Layer.merge(sqlite, migrated))
}

/** Embedded DuckDB + state store + Node platform for a project root. */
export const runtimeLayer = (root: string) =>
  Layer.mergeAll(
    embeddedLayer(path.join(root, ".pcli", "warehouse.duckdb")),
    stateLayer(root)
  ).pipe(Layer.provideMerge(NodeContext.layer))

export const compileRoot = (root: string) =>
  Effect.flatMap(loadModels({ modelsDir: path.join(root, "models"), env: {} }), compileModels).pipe(
    Effect.provide(NodeContext.layer)
  ) as Effect.Effect<CompiledProject, unknown>

export const query = (sql: string) =>
  Effect.flatMap(Warehouse, (wh) => wh.execute(sql)).pipe(Effect.map((r) => r.rows))

/**
 * Fault injector around the real warehouse: the first `failures` statements matching
 * `when` fail as transient (like lock contention), everything else reaches DuckDB.
 */
export const flakyWarehouse = (failures: number, when: (sql: string) => boolean) =>
  Layer.effect(
    Warehouse,
    Effect.gen(function* () {
      const inner = yield* Warehouse
      let left = failures
      return {
        kind: inner.kind,
        execute: (sql: string) =>
          Effect.suspend(() => {
            if (left > 0 && when(sql)) {
              left--
              return Effect.fail(new StatementFailed({ detail: "IO Error: Could not set lock on file", transient: true }))
            }
            return inner.execute(sql)
          })
      }
    })
  )

/** Log messages at WARN and above, as the CLI's stderr logger would receive them. */
export const captureWarnings = () => {
  const lines: Array<string> = []
  const logger = Logger.make(({ logLevel, message }) => {
    if (LogLevel.greaterThanEqual(logLevel, LogLevel.Warning)) lines.push(Array.isArray(message) ? message.join(" ") : String(message))
  })
  return { lines, layer: Logger.replace(Logger.defaultLogger, logger) }
}

/** Counts the statements that reach the warehouse (to show a check ran before any work). */
export const countingWarehouse = () => {
  const seen: Array<string> = []
  const layer = Layer.effect(
    Warehouse,
    Effect.map(Warehouse, (inner) => ({
      kind: inner.kind,
      execute: (sql: string) => Effect.suspend(() => (seen.push(sql), inner.execute(sql)))
    }))
  )
  return { seen, layer }
}
