import { FileSystem, Path } from "@effect/platform"
import { Clock, Data, Effect, Option } from "effect"
import type { TargetBlock } from "../../schemas/model"
import { DuckDb } from "../Warehouse/embedded"
import { type StatementFailed, Warehouse, type WarehouseService } from "../Warehouse/Warehouse"
import {
  type ArtifactWriteFailed,
  artifactFilePath,
  blake3Hex,
  canonicalJson,
  hashCanonical,
  resolveStoragePrefix,
  writeParquetArtifact
} from "../Artifacts/artifacts"
import type { CompiledModel } from "../Project/compile"
import { InvalidPartitionWindow } from "../Project/errors"
import { parsePartitionKey } from "../Project/partitionKeys"
import { partitionsBetween } from "./partitions"
import { RunStore, type RunStoreFailed, type UpstreamRecord } from "./RunStore"
import { integerLiteralColumns, substituteWindow } from "../Project/sql"
import { checkContract, type ContractViolation, type DataTestColumnMissing, type DataTestFailed, quoteIdent, runDataTests, type TestMode } from "./tests"

/** content_addressed writes Parquet through DuckDB itself; a remote warehouse cannot. */
export class ContentAddressedNeedsEmbedded extends Data.TaggedError("ContentAddressedNeedsEmbedded")<{
  readonly model: string
}> {
  readonly code = "content-addressed-needs-embedded"
  override get message() {
    return `model ${this.model}: content_addressed needs the embedded DuckDB warehouse`
  }
}

export type BuildError =
  | StatementFailed
  | DataTestFailed
  | DataTestColumnMissing
  | ContractViolation
  | InvalidPartitionWindow
  | ContentAddressedNeedsEmbedded
  | ArtifactWriteFailed
  | RunStoreFailed

/** Partition window of a run (backfill `--from/--to`): canonical partition keys, both inclusive. */
export interface PartitionOptions {
  readonly from: string
  readonly to: string
}

export interface ContentOutput {
  readonly hash: string
  readonly filePath: string
  readonly upstreamKey: string
}

export interface BuildContext {
  readonly runId: string
  readonly model: CompiledModel
  readonly projectRoot: string
  readonly partition: PartitionOptions | undefined
  /** Content-addressed outputs produced earlier in this run, by model name. */
  readonly contentOutputs: ReadonlyMap<string, ContentOutput>
  /** Targets of every compiled model, to name upstreams in provenance. */
  readonly targetOf: (model: string) => TargetBlock | undefined
  /** Where the model's rows live (decision 37): its physical table; absent, its target itself. */
  readonly physical?: TargetBlock | undefined
  /** Statements published with the rows, in their transaction: the view over the physical table. */
  readonly publishView?: ReadonlyArray<string> | undefined
  /** The SQL a whole rebuild executes, from the model's (what the run records stays the model's): `directReads.ts`. */
  readonly executable?: ((sql: string) => string) | undefined
}

export interface BuildResult {
  readonly rows: number
  readonly warnings: ReadonlyArray<string>
  readonly sqlAsRun: string
  readonly output: ContentOutput | undefined
}

/** On the embedded warehouse the catalog is informational: tables live in the file's own catalog. */
export const physicalName = (target: TargetBlock, kind: WarehouseService["kind"]): string =>
  kind === "embedded"
    ? `${quoteIdent(target.schema)}.${quoteIdent(target.table)}`
    : `${quoteIdent(target.catalog)}.${quoteIdent(target.schema)}.${quoteIdent(target.table)}`

const stagingName = (target: TargetBlock, kind: WarehouseService["kind"]): string =>
  physicalName({ ...target, table: `__pcli_stage_${target.table}` }, kind)

const schemaName = (target: TargetBlock, kind: WarehouseService["kind"]) =>
  kind === "embedded" ? quoteIdent(target.schema) : `${quoteIdent(target.catalog)}.${quoteIdent(target.schema)}`

/**
 * Creates each target schema of a layer once, one after another, before its models run
 * concurrently: two models creating the same schema at once is a catalog write conflict.
 * A failure here is left for the model's own statement to report under its name.
 */
export const ensureSchemas = (models: ReadonlyArray<CompiledModel>, created: Set<string> = new Set()) =>
  Effect.flatMap(Warehouse, (wh) =>
    Effect.forEach(
      [...new Set(models.map((m) => schemaName(m.target, wh.kind)))].filter((schema) => !created.has(schema)),
      (schema) => Effect.ignore(wh.execute(`CREATE SCHEMA IF NOT EXISTS ${schema}`)).pipe(Effect.tap(() => created.add(schema))),
      { discard: true }
    )
  )

/** The model's SELECT without trailing semicolons, safe to wrap in parentheses (newline before `)`). */
export const bodyOf = (sql: string): string => sql.trim().replace(/;+\s*$/, "")

const subquery = (sql: string) => `(\n${sql}\n)`

/**
 * Publishes atomically: on the embedded warehouse in one transaction (when the whole build is
 * already in one, on a pinned connection, the publish commits it); statement by statement on a remote one.
 */
const publish = (wh: WarehouseService, statements: ReadonlyArray<string>) =>
  wh.kind !== "embedded"
    ? Effect.forEach(statements, (s) => wh.execute(s), { discard: true })
    : wh.pinned === true
      ? wh.execute([...statements, "COMMIT"].join(";\n"))
      : wh.execute(["BEGIN TRANSACTION", ...statements, "COMMIT"].join(";\n"))

/**
 * Replaces the target with the staged table (a build off its own transaction). Embedded: the staged
 * table takes the target's name in one transaction (no copy of the rows); remote: copied, then the stage dropped.
 */
const publishReplacing = (wh: WarehouseService, target: TargetBlock, table: string, stage: string, view: ReadonlyArray<string>) =>
  wh.kind === "embedded"
    ? publish(wh, [`DROP TABLE IF EXISTS ${table}`, `ALTER TABLE ${stage} RENAME TO ${quoteIdent(target.table)}`, ...view])
    : publish(wh, [`CREATE OR REPLACE TABLE ${table} AS SELECT * FROM ${stage}`, `DROP TABLE ${stage}`, ...view])

/** Creates (or replaces) `table` as the SELECT and returns its row count (DuckDB's CTAS answers with it; a warehouse that does not is counted). */
const createTableAs = (wh: WarehouseService, table: string, select: string) =>
  Effect.flatMap(wh.execute(`CREATE OR REPLACE TABLE ${table} AS ${subquery(select)}`), (created) => {
    const count = created.rows[0]?.[0]
    return wh.kind === "embedded" && (typeof count === "bigint" || typeof count === "number")
      ? Effect.succeed(Number(count))
      : countRows(wh, table)
  })

const tableExists = (wh: WarehouseService, target: TargetBlock) =>
  wh
    .execute(
      `SELECT count(*) FROM information_schema.tables WHERE table_schema = '${target.schema.replace(/'/g, "''")}' AND table_name = '${target.table.replace(/'/g, "''")}'`
    )
    .pipe(Effect.map((r) => Number(r.rows[0]?.[0] ?? 0) > 0))

const countRows = (wh: WarehouseService, relation: string) =>
  wh.execute(`SELECT count(*) FROM ${relation}`).pipe(Effect.map((r) => Number(r.rows[0]?.[0] ?? 0)))

/** Tests and contract against the candidate relation: what the table will hold once published. */
const verify = (model: CompiledModel, candidate: string, sqlAsRun: string, mode: TestMode) =>
  Effect.gen(function* () {
    const warnings = yield* runDataTests(model.name, model.definition.sidecar.tests, candidate, mode)
    if (model.definition.contract === undefined) return warnings
    const contractWarnings = yield* checkContract(model.name, model.definition.contract, candidate, {
      integerLiterals: integerLiteralColumns(sqlAsRun)
    })
    return [...warnings, ...contractWarnings]
  })

/**
 * Builds the model's whole table, verifies it and publishes it. In the build's own transaction
 * the new table takes the target's name at once: no one sees it before the commit, a rollback
 * brings the old one back, and no staged table is renamed. Otherwise it is staged beside the
 * target and replaces it once verified.
 */
const replaceWhole = (wh: WarehouseService, transactional: boolean, ctx: BuildContext, select: string, mode: TestMode) =>
  Effect.gen(function* () {
    const model = ctx.model
    const home = ctx.physical ?? model.target
    const view = ctx.publishView ?? []
    const table = physicalName(home, wh.kind)
    const stage = stagingName(home, wh.kind)
    const built = transactional ? table : stage
    const rows = yield* createTableAs(wh, built, ctx.executable?.(select) ?? select)
    const warnings = yield* verify(model, built, select, mode)
    yield* transactional ? publish(wh, view) : publishReplacing(wh, home, table, stage, view)
    return { rows, warnings }
  })

/**
 * The pinned connection of one build whose first statement also opens its transaction: one
 * round trip fewer per model. A statement that fails to parse runs nothing, BEGIN included;
 * the build then fails and its rollback finds nothing open, as before.
 */
const openingTransaction = (connection: WarehouseService): WarehouseService => {
  let opened = false
  return {
    ...connection,
    execute: (sql) =>
      Effect.suspend(() => {
        if (opened) return connection.execute(sql)
        opened = true
        return connection.execute(`BEGIN TRANSACTION;\n${sql}`)
      })
  }
}

const farFuture = new Date(Date.UTC(9999, 11, 31))

/** On a pinned connection the whole build is one transaction (content-addressed publishes from another connection, which must see the staged table committed). */
const inOneTransaction = (connection: WarehouseService, model: CompiledModel) =>
  connection.kind === "embedded" && connection.pinned === true && model.strategy.type !== "content_addressed"

/**
 * Builds one model, verifies it, then publishes it; on failure nothing is published (its
 * transaction rolls back, or its staged table is dropped). In one transaction, a fused test
 * statement that failed took the transaction, and the table it tested, with it: the build runs
 * again with its tests one by one, so the failure reported is the one its own test reports.
 */
export const buildModel = (
  ctx: BuildContext
): Effect.Effect<BuildResult, BuildError, Warehouse | RunStore | FileSystem.FileSystem | Path.Path> =>
  Effect.flatMap(Warehouse, (connection) =>
    buildAttempt(ctx, connection, inOneTransaction(connection, ctx.model) ? "fused-or-fail" : "fused-then-one-by-one").pipe(
      Effect.catchTag("FusedStatementFailed", () => buildAttempt(ctx, connection, "one-by-one")),
      // Only the fused test statement fails this way, and the run with tests one by one has none.
      Effect.catchTag("FusedStatementFailed", (e) => Effect.fail(e.cause))
    )
  )

const buildAttempt = (ctx: BuildContext, connection: WarehouseService, mode: TestMode) =>
  Effect.gen(function* () {
    const model = ctx.model
    const target = model.target
    const home = ctx.physical ?? target
    const view = ctx.publishView ?? []
    const table = physicalName(home, connection.kind)
    const stage = stagingName(home, connection.kind)
    const strategy = model.strategy
    let sql = bodyOf(model.definition.sql)

    // One commit per model, and a failure rolls back everything the build wrote.
    const transactional = inOneTransaction(connection, model)
    const wh = transactional ? openingTransaction(connection) : connection
    const unpinned: WarehouseService = { ...wh, pinned: false }
    const dropStage = (transactional ? connection.execute("ROLLBACK") : wh.execute(`DROP TABLE IF EXISTS ${stage}`)).pipe(Effect.ignore)
    const build = Effect.gen(function* () {
      switch (strategy.type) {
        case "full_refresh":
          return { ...(yield* replaceWhole(wh, transactional, ctx, sql, mode)), output: undefined }
        case "incremental": {
          const exists = yield* tableExists(wh, home)
          const ts = quoteIdent(strategy.timestamp_column)
          const newRows = exists
            ? `SELECT * FROM ${subquery(sql)} AS src WHERE (SELECT max(${ts}) FROM ${table}) IS NULL OR src.${ts} > (SELECT max(${ts}) FROM ${table})`
            : sql
          const rows = yield* createTableAs(wh, stage, newRows)
          const candidate = exists ? `(SELECT * FROM ${table} UNION ALL SELECT * FROM ${stage})` : stage
          const warnings = yield* verify(model, candidate, sql, mode)
          yield* publish(
            wh,
            exists
              ? [`INSERT INTO ${table} SELECT * FROM ${stage}`, `DROP TABLE ${stage}`, ...view]
              : [`CREATE TABLE ${table} AS SELECT * FROM ${stage}`, `DROP TABLE ${stage}`, ...view]
          )
          return { rows, warnings, output: undefined }
        }
        case "time_interval": {
          const col = quoteIdent(strategy.time_column)
          if (ctx.partition === undefined) {
            // No window: rebuild every partition from the first one (or from the beginning of time).
            const first =
              strategy.first_partition === undefined
                ? undefined
                : parsePartitionKey(strategy.first_partition, strategy.granularity)
            sql = substituteWindow(sql, first ?? new Date(Date.UTC(1, 0, 1)), farFuture)
            return { ...(yield* replaceWhole(wh, transactional, ctx, sql, mode)), output: undefined }
          }
          const windows = partitionsBetween(ctx.partition.from, ctx.partition.to, strategy.granularity)
          if (windows === undefined || windows.length === 0) {
            // Unreachable after `checkSelection`; kept for callers that build one model directly.
            return yield* new InvalidPartitionWindow({
              ...ctx.partition,
              detail: `not a valid ${strategy.granularity} range for model ${model.name}`
            })
          }
          const range = (qualifier: string, start: Date, end: Date) =>
            `${qualifier}${col} >= ${literalTs(start)} AND ${qualifier}${col} < ${literalTs(end)}`
          // Each partition's query is filtered to its own window, so delete-insert stays idempotent.
          const bodies = windows.map((w) => substituteWindow(sql, w.start, w.end))
          const selects = windows.map(
            (w, i) => `SELECT * FROM ${subquery(bodies[i]!)} AS src WHERE ${range("src.", w.start, w.end)}`
          )
          sql = bodies.join("\n;\n")
          const whole = range("", windows[0]!.start, windows[windows.length - 1]!.end)
          const rows = yield* createTableAs(wh, stage, selects.map(subquery).join("\nUNION ALL\n"))
          const exists = yield* tableExists(wh, home)
          const candidate = exists ? `(SELECT * FROM ${table} WHERE NOT (${whole}) UNION ALL SELECT * FROM ${stage})` : stage
          const warnings = yield* verify(model, candidate, bodies[0]!, mode)
          yield* publish(
            wh,
            exists
              ? [`DELETE FROM ${table} WHERE ${whole}`, `INSERT INTO ${table} SELECT * FROM ${stage}`, `DROP TABLE ${stage}`, ...view]
              : [`CREATE TABLE ${table} AS SELECT * FROM ${stage}`, `DROP TABLE ${stage}`, ...view]
          )
          return { rows, warnings, output: undefined }
        }
        case "content_addressed": {
          const duck = yield* Effect.serviceOption(DuckDb)
          if (wh.kind !== "embedded" || Option.isNone(duck)) {
            return yield* new ContentAddressedNeedsEmbedded({ model: model.name })
          }
          const path = yield* Path.Path
          const rows = yield* createTableAs(wh, stage, sql)
          const warnings = yield* verify(model, stage, sql, mode)
          const written = yield* writeParquetArtifact({
            duck: duck.value,
            model: model.name,
            relation: stage,
            dir: resolveStoragePrefix(strategy.storage_prefix, ctx.projectRoot, path),
            tempName: `.tmp-${ctx.runId}-${model.name}.parquet`
          })
          const absolute = written.absolutePath.replace(/'/g, "''")
          yield* publish(unpinned, [`CREATE OR REPLACE VIEW ${table} AS SELECT * FROM read_parquet('${absolute}')`, `DROP TABLE ${stage}`])
          const filePath = artifactFilePath(strategy.storage_prefix, written.hash)
          const output: ContentOutput = { hash: written.hash, filePath, upstreamKey: targetKey(target) }
          yield* recordArtifact(ctx, sql, output, written.size, rows)
          return { rows, warnings, output }
        }
      }
    })
    const result = yield* build.pipe(Effect.provideService(Warehouse, wh), Effect.tapError(() => dropStage))
    return { ...result, sqlAsRun: sql }
  })

const literalTs = (d: Date) => `TIMESTAMP ${substituteWindow("@start_date", d, d)}`

export const targetKey = (t: TargetBlock) => `${t.catalog}.${t.schema}.${t.table}`

/** Canonical recipe of a model as run: what its recipe hash covers. */
export const recipeOf = (model: CompiledModel, sqlAsRun: string) => ({
  name: model.name,
  sql: sqlAsRun,
  strategy: model.strategy,
  target: model.target,
  tests: model.definition.sidecar.tests,
  contract: model.definition.contract ?? null
})

export const recipeHash = (model: CompiledModel, sqlAsRun: string) => hashCanonical(recipeOf(model, sqlAsRun))
export const sqlHash = (sqlAsRun: string) => blake3Hex(new TextEncoder().encode(sqlAsRun))

/** Ledger row plus provenance: strong only when every read is a content hash produced in this run. */
const recordArtifact = (ctx: BuildContext, sqlAsRun: string, output: ContentOutput, size: number, rows: number) =>
  Effect.gen(function* () {
    const store = yield* RunStore
    const now = new Date(yield* Clock.currentTimeMillis).toISOString()
    const commitVersion = yield* store.nextCommitVersion(ctx.model.name)
    yield* store.recordArtifact({
      run_id: ctx.runId,
      model_name: ctx.model.name,
      file_path: output.filePath,
      blake3_hash: output.hash,
      size_bytes: size,
      commit_version: commitVersion,
      rows,
      written_at: now
    })
    const upstreams: Array<UpstreamRecord> = [
      ...ctx.model.upstream.map((name): UpstreamRecord => {
        const content = ctx.contentOutputs.get(name)
        const t = ctx.targetOf(name)
        const key = t === undefined ? name : targetKey(t)
        return content === undefined
          ? { kind: "watermark", upstream_key: key }
          : { kind: "content", upstream_key: key, blake3_hash: content.hash }
      }),
      ...ctx.model.sourceRefs.map((ref): UpstreamRecord => ({ kind: "watermark", upstream_key: ref }))
    ].sort((a, b) => (a.upstream_key < b.upstream_key ? -1 : a.upstream_key > b.upstream_key ? 1 : 0))
    const recipe = recipeOf(ctx.model, sqlAsRun)
    const hash = hashCanonical(recipe)
    yield* store.recordProvenance({
      run_id: ctx.runId,
      model_name: ctx.model.name,
      recipe_hash: hash,
      input_hash: hashCanonical({ recipe_hash: hash, target_identity: targetKey(ctx.model.target), upstreams }),
      model_canonical_json: canonicalJson(recipe),
      upstreams,
      output_blake3: [output.hash],
      output_path: [output.filePath],
      proof_class: upstreams.every((u) => u.kind === "content") ? "strong" : "heuristic",
      recorded_at: now
    })
  })
