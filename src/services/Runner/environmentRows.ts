import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { canonicalJsonFast } from "../Artifacts/artifacts"
import type { CompiledModel } from "../Project/compile"

/** The production environment's name: the environment `pcli run` builds when no `--branch` is given. */
export const PRODUCTION = "prod"

/** What an environment's view of one model points at (decision 37). */
export interface EnvironmentModel {
  readonly model_name: string
  /** The physical table, `schema.table` in the physical schema (unquoted parts). */
  readonly physical: string
  /** The environment fingerprint of what that table holds. */
  readonly fingerprint: string
  /** The parts whose change is breaking for an appending model (strategy, target, contract). */
  readonly table_key: string
  readonly updated_at: string
}

/**
 * A physical table's recipe as the run that last built it recorded it (issue 34 item 4): what gc
 * reads to judge a table no environment references. `recipe_json` is `{ sql, strategy }`, the SQL as run.
 */
export interface PhysicalTableRow {
  readonly physical: string
  readonly model_name: string
  readonly fingerprint: string
  readonly strategy: string
  readonly run_id: string
  readonly recipe_hash: string
  readonly recipe_json: string
  readonly built_at: string
}

/** The registry row of a table a run just built: its recipe is the SQL as run and the strategy. */
export const physicalTableRow = (
  model: CompiledModel,
  physical: string,
  fingerprint: string,
  build: { readonly run_id: string; readonly recipe_hash: string; readonly built_at: string },
  sqlAsRun: string
): PhysicalTableRow => ({
  physical,
  model_name: model.name,
  fingerprint,
  strategy: model.strategy.type,
  run_id: build.run_id,
  recipe_hash: build.recipe_hash,
  built_at: build.built_at,
  recipe_json: canonicalJsonFast({ sql: sqlAsRun, strategy: model.strategy })
})

/** A branch: its base environment and its last run. */
export interface EnvironmentRow {
  readonly name: string
  readonly base: string
  readonly created_at: string
  readonly last_run_id: string | null
  readonly last_run_at: string | null
}

/** A view's target: the physical table, with the fingerprint it holds. */
export type ViewTarget = Pick<EnvironmentModel, "physical" | "fingerprint" | "table_key">

/** One view a promote or rollback points: its target before (`from`) and after (`to`; null drops the view). */
export interface SwappedView {
  readonly model_name: string
  readonly catalog: string
  readonly schema: string
  readonly table: string
  readonly from: ViewTarget | null
  readonly to: ViewTarget | null
}

/** One applied promote or rollback and the views it swapped. */
export interface PromotionRow {
  readonly plan_id: string
  readonly environment: string
  readonly kind: "promote" | "rollback"
  readonly applied_at: string
  readonly views: ReadonlyArray<SwappedView>
}

/**
 * A physical table's build state as the store holds it: its `model_builds` row and `model_intervals`
 * rows, columns as stored (a promote or rollback copies them in and out of production's state).
 */
export interface PhysicalBuild {
  readonly physical: string
  readonly build: Readonly<Record<string, unknown>>
  readonly intervals: ReadonlyArray<Readonly<Record<string, unknown>>>
}

/** The environment statements of the state store, in portable SQL (SQLite and PostgreSQL). */
export const environmentRows = (sql: SqlClient.SqlClient) => {
  const modelsOf = (environment: string) =>
    sql<EnvironmentModel>`SELECT model_name, physical, fingerprint, table_key, updated_at FROM environment_models WHERE environment = ${environment}`.pipe(
      Effect.map((rows) => new Map(rows.map((r) => [r.model_name, r])) as ReadonlyMap<string, EnvironmentModel>)
    )
  /** Replaces the rows of the named models (in the caller's transaction, if any). */
  const putModels = (environment: string, rows: ReadonlyArray<EnvironmentModel>) =>
    Effect.forEach(
      rows,
      (row) =>
        Effect.zipRight(
          sql`DELETE FROM environment_models WHERE environment = ${environment} AND model_name = ${row.model_name}`,
          sql`INSERT INTO environment_models ${sql.insert({ environment, ...row })}`
        ),
      { discard: true }
    )
  const putPhysicalBuilds = (rows: ReadonlyArray<PhysicalBuild>) =>
    Effect.forEach(
      rows,
      (row) =>
        Effect.zipRight(
          sql`DELETE FROM physical_builds WHERE physical = ${row.physical}`,
          sql`INSERT INTO physical_builds ${sql.insert({ physical: row.physical, build_json: JSON.stringify(row.build), intervals_json: JSON.stringify(row.intervals) })}`
        ),
      { discard: true }
    )
  /**
   * The table's last build replaces its row (a forward-only table is rebuilt under one name); 500
   * rows per statement (8 columns stay under SQLite's bound-parameter limit), so a 1,000-model run
   * adds a handful of statements.
   */
  const putPhysicalTables = (rows: ReadonlyArray<PhysicalTableRow>) =>
    Effect.forEach(
      Array.from({ length: Math.ceil(rows.length / 500) }, (_, i) => rows.slice(i * 500, i * 500 + 500)),
      (batch) =>
        Effect.zipRight(
          sql`DELETE FROM physical_tables WHERE physical IN ${sql.in(batch.map((r) => r.physical))}`,
          sql`INSERT INTO physical_tables ${sql.insert(batch.map((r) => ({ ...r })))}`
        ),
      { discard: true }
    )
  /** Production's build state of one model: kept under the table it leaves, taken from the table it now reads. */
  const handOver = (view: SwappedView) =>
    Effect.gen(function* () {
      if (view.from !== null) {
        const [build] = yield* sql<Record<string, unknown>>`SELECT * FROM model_builds WHERE model_name = ${view.model_name}`
        const intervals = yield* sql<Record<string, unknown>>`SELECT * FROM model_intervals WHERE model_name = ${view.model_name}`
        if (build !== undefined) yield* putPhysicalBuilds([{ physical: view.from.physical, build, intervals }])
      }
      yield* sql`DELETE FROM model_builds WHERE model_name = ${view.model_name}`
      yield* sql`DELETE FROM model_intervals WHERE model_name = ${view.model_name}`
      if (view.to === null) return
      const [stored] = yield* sql<{ build_json: string; intervals_json: string }>`SELECT build_json, intervals_json FROM physical_builds WHERE physical = ${view.to.physical}`
      // A table with no recorded build (built before its state was kept) is rebuilt in place by the next run.
      if (stored === undefined) return
      yield* sql`INSERT INTO model_builds ${sql.insert({ ...(JSON.parse(stored.build_json) as Record<string, unknown>), model_name: view.model_name })}`
      for (const row of JSON.parse(stored.intervals_json) as ReadonlyArray<Record<string, unknown>>) {
        yield* sql`INSERT INTO model_intervals ${sql.insert({ ...row, model_name: view.model_name })}`
      }
      // Production's state now describes the table; a copy kept here would go stale with its next run.
      yield* sql`DELETE FROM physical_builds WHERE physical = ${view.to.physical}`
    })
  return {
    modelsOf,
    putModels,
    putPhysicalBuilds,
    putPhysicalTables,
    /** The recorded build state of each physical table no production view pointed at when it was kept. */
    physicalBuilds: sql<{ physical: string; build_json: string }>`SELECT physical, build_json FROM physical_builds`.pipe(
      Effect.map((rows) => new Map(rows.map((r) => [r.physical, JSON.parse(r.build_json) as Record<string, unknown>])) as ReadonlyMap<string, Readonly<Record<string, unknown>>>)
    ),
    /** Hands production's incremental state over with the views a promote or rollback swapped (in the caller's transaction). */
    handOverBuilds: (views: ReadonlyArray<SwappedView>) => Effect.forEach(views, handOver, { discard: true }),
    environments: sql<EnvironmentRow>`SELECT name, base, created_at, last_run_id, last_run_at FROM environments ORDER BY name`,
    createEnvironment: (row: EnvironmentRow) => sql`INSERT INTO environments ${sql.insert({ ...row })}`.pipe(Effect.asVoid),
    dropModel: (environment: string, model: string) =>
      sql`DELETE FROM environment_models WHERE environment = ${environment} AND model_name = ${model}`.pipe(Effect.asVoid),
    /** Runs `body` in one store transaction. */
    inTransaction: <A, E, R>(body: Effect.Effect<A, E, R>) => sql.withTransaction(body),
    dropEnvironment: (name: string) =>
      sql.withTransaction(
        Effect.zipRight(sql`DELETE FROM environment_models WHERE environment = ${name}`, sql`DELETE FROM environments WHERE name = ${name}`)
      ).pipe(Effect.asVoid),
    markRun: (name: string, runId: string, at: string) =>
      sql`UPDATE environments SET last_run_id = ${runId}, last_run_at = ${at} WHERE name = ${name}`.pipe(Effect.asVoid),
    /** Every physical table some environment's view points at. */
    referencedPhysicals: sql<{ physical: string }>`SELECT DISTINCT physical FROM environment_models`.pipe(
      Effect.map((rows) => new Set(rows.map((r) => r.physical.toLowerCase())) as ReadonlySet<string>)
    ),
    recordPromotion: (row: PromotionRow) =>
      sql`INSERT INTO promotions ${sql.insert({
        plan_id: row.plan_id,
        environment: row.environment,
        kind: row.kind,
        applied_at: row.applied_at,
        views_json: JSON.stringify(row.views)
      })}`.pipe(Effect.asVoid),
    promotions: sql<{ plan_id: string; environment: string; kind: "promote" | "rollback"; applied_at: string; views_json: string }>`SELECT plan_id, environment, kind, applied_at, views_json FROM promotions ORDER BY applied_at, plan_id`.pipe(
      Effect.map((rows) =>
        rows.map((r): PromotionRow => ({
          plan_id: r.plan_id,
          environment: r.environment,
          kind: r.kind,
          applied_at: r.applied_at,
          views: JSON.parse(r.views_json) as ReadonlyArray<SwappedView>
        }))
      )
    )
  }
}

export type EnvironmentStatements = ReturnType<typeof environmentRows>
export type { SqlError }
