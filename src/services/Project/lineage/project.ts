import { Effect } from "effect"
import { acquireDuckDbInstance } from "../../Warehouse/embedded"
import { StatementFailed } from "../../Warehouse/Warehouse"
import type { CompiledProject } from "../compile"
import { parseableSql, serializeBatch } from "../sql"
import { analyzeQuery, type QueryLineage, type TableResolver } from "./analyze"

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
 * in-memory database) and analyses each in execution order; `extra` as ExtraColumns says.
 */
export const projectColumns = (project: CompiledProject, extra: ExtraColumns = new Map()): Effect.Effect<ProjectColumns, StatementFailed> =>
  Effect.scoped(
    Effect.gen(function* () {
      const names = project.order
      const out = new Map<string, QueryLineage>()
      if (names.length === 0) return out
      const instance = yield* acquireDuckDbInstance(":memory:")
      const connection = yield* Effect.acquireRelease(
        Effect.tryPromise({ try: () => instance.connect(), catch: (e) => new StatementFailed({ detail: String(e), transient: false }) }),
        (c) => Effect.sync(() => c.closeSync())
      )
      const serialized = yield* Effect.tryPromise({
        try: () => serializeBatch(connection, names.map((n) => parseableSql(project.models.get(n)!.definition.sql)), false),
        catch: (e) => new StatementFailed({ detail: e instanceof Error ? e.message : String(e), transient: false })
      })
      // The resolver reads `out` as it fills: upstream models come first in execution order.
      const resolve = resolverFor(project, out, extra)
      names.forEach((name, i) => out.set(name, analyzeQuery(serialized[i]?.json ?? "null", resolve)))
      return out as ProjectColumns
    })
  )
