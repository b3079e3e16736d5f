import { Effect } from "effect"
import { acquireDuckDbInstance } from "../../Warehouse/duckdbInstance"
import { StatementFailed } from "../../Warehouse/Warehouse"
import type { CompiledProject } from "../compile"
import { parseableSql, serializeBatch } from "../sql"
import { analyzeQuery, type QueryLineage, type TableResolver } from "./analyze"
import { readAstCache, sqlKey, writeAstCache } from "./astCache"

/**
 * Columns a model is read as having beyond what its SQL outputs now: a breaking change's removed
 * columns, so downstream SQL that still names them resolves to them (its readers) instead of to nothing.
 */
export type ExtraColumns = ReadonlyMap<string, ReadonlyArray<string>>

/** Every model's column lineage, analysed in execution order so a model sees its upstreams' columns. */
export type ProjectColumns = ReadonlyMap<string, QueryLineage>

const lower = (s: string | undefined) => s?.toLowerCase()

/** Base tables resolved as the compile resolves them: a unique model whose target ends with the name, else a source. */
const resolverFor = (project: CompiledProject, analysed: ReadonlyMap<string, QueryLineage>, extra: ExtraColumns): TableResolver => {
  const byTable = new Map<string, Array<string>>()
  for (const [name, m] of project.models) {
    const key = m.target.table.toLowerCase()
    byTable.set(key, [...(byTable.get(key) ?? []), name])
  }
  return (ref) => {
    const candidates = (byTable.get(ref.table.toLowerCase()) ?? []).filter((name) => {
      const t = project.models.get(name)!.target
      return (ref.schema === undefined || lower(ref.schema) === lower(t.schema)) && (ref.catalog === undefined || lower(ref.catalog) === lower(t.catalog))
    })
    const name = [ref.catalog, ref.schema, ref.table].filter((p) => p !== undefined).join(".")
    if (candidates.length !== 1) return { kind: "source", name, columns: undefined }
    const model = candidates[0]!
    const columns = analysed.get(model)?.columns?.map((c) => c.name)
    const added = (extra.get(model) ?? []).filter((c) => columns !== undefined && !columns.some((k) => k.toLowerCase() === c.toLowerCase()))
    return { kind: "model", name: model, columns: columns === undefined ? undefined : [...columns, ...added] }
  }
}

/**
 * Parses every model's SQL with DuckDB's parser (`json_serialize_sql`, one batch on a private
 * in-memory database; through the cache under `cacheRoot` when given) and analyses each in execution
 * order; `extra` as ExtraColumns says.
 */
export const projectColumns = (project: CompiledProject, extra: ExtraColumns = new Map(), cacheRoot?: string): Effect.Effect<ProjectColumns, StatementFailed> =>
  Effect.gen(function* () {
    const names = project.order
    const out = new Map<string, QueryLineage>()
    if (names.length === 0) return out
    const sqls = names.map((n) => parseableSql(project.models.get(n)!.definition.sql))
    const serialized = yield* serializedAll(sqls, cacheRoot)
    // The resolver reads `out` as it fills: upstream models come first in execution order.
    const resolve = resolverFor(project, out, extra)
    names.forEach((name, i) => out.set(name, analyzeQuery(serialized[i] ?? "null", resolve)))
    return out as ProjectColumns
  })

/** Each SQL text's `json_serialize_sql`, from the cache under `cacheRoot` where it has it, else parsed by DuckDB (and cached). */
const serializedAll = (sqls: ReadonlyArray<string>, cacheRoot: string | undefined): Effect.Effect<ReadonlyArray<string>, StatementFailed> =>
  Effect.gen(function* () {
    const cache = cacheRoot === undefined ? new Map<string, string>() : readAstCache(cacheRoot)
    const keys = sqls.map(sqlKey)
    const missing = sqls.flatMap((sql, i) => (cache.has(keys[i]!) ? [] : [sql]))
    const parsed = missing.length === 0 ? [] : yield* parseWithDuckDb(missing)
    const fresh = new Map(missing.map((sql, i) => [sqlKey(sql), parsed[i] ?? "null"]))
    const texts = keys.map((k) => cache.get(k) ?? fresh.get(k) ?? "null")
    if (cacheRoot !== undefined && (missing.length > 0 || cache.size !== new Set(keys).size)) writeAstCache(cacheRoot, new Map(keys.map((k, i) => [k, texts[i]!])))
    return texts
  })

const parseWithDuckDb = (sqls: ReadonlyArray<string>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const instance = yield* acquireDuckDbInstance(":memory:")
      const connection = yield* Effect.acquireRelease(
        Effect.tryPromise({ try: () => instance.connect(), catch: (e) => new StatementFailed({ detail: String(e), transient: false }) }),
        (c) => Effect.sync(() => c.closeSync())
      )
      const serialized = yield* Effect.tryPromise({
        try: () => serializeBatch(connection, sqls, false),
        catch: (e) => new StatementFailed({ detail: e instanceof Error ? e.message : String(e), transient: false })
      })
      return serialized.map((s) => s.json)
    })
  )
