import type { DuckDBConnection } from "@duckdb/node-api"
import { Effect } from "effect"
import { acquireDuckDbInstance } from "../Warehouse/embedded"
import { StatementFailed } from "../Warehouse/Warehouse"
import { ModelSqlInvalid } from "./errors"

/** A table a query reads, as written (empty parts omitted). */
export interface TableRef {
  readonly catalog: string | undefined
  readonly schema: string | undefined
  readonly table: string
}

export const formatTableRef = (ref: TableRef): string =>
  [ref.catalog, ref.schema, ref.table].filter((p): p is string => p !== undefined).join(".")

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

const isObject = (value: Json | undefined): value is { readonly [key: string]: Json } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const nonEmpty = (value: Json | undefined): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined

/** Walks a serialized statement: base tables read, and CTE names (which are not tables). */
const collect = (node: Json, tables: Array<TableRef>, ctes: Set<string>): void => {
  if (Array.isArray(node)) {
    for (const child of node) collect(child, tables, ctes)
    return
  }
  if (!isObject(node)) return
  if (node["type"] === "BASE_TABLE") {
    const table = nonEmpty(node["table_name"])
    if (table !== undefined) {
      tables.push({ catalog: nonEmpty(node["catalog_name"]), schema: nonEmpty(node["schema_name"]), table })
    }
  }
  const cteMap = node["cte_map"]
  if (isObject(cteMap) && Array.isArray(cteMap["map"])) {
    for (const entry of cteMap["map"] as ReadonlyArray<Json>) {
      if (isObject(entry) && typeof entry["key"] === "string") ctes.add(entry["key"].toLowerCase())
    }
  }
  for (const key in node) {
    const child = node[key]
    if (typeof child === "object" && child !== null) collect(child, tables, ctes)
  }
}

/** Distinct tables read by one serialized statement, CTE names removed, sorted by their text. */
export const referencesOf = (serialized: string, model: string): Effect.Effect<ReadonlyArray<TableRef>, ModelSqlInvalid> =>
  Effect.suspend(() => {
    const parsed = JSON.parse(serialized) as Json
    if (!isObject(parsed)) return Effect.fail(new ModelSqlInvalid({ model, detail: "parser returned no statement" }))
    if (parsed["error"] === true) {
      const detail = typeof parsed["error_message"] === "string" ? parsed["error_message"] : "unparseable"
      return Effect.fail(new ModelSqlInvalid({ model, detail }))
    }
    const statements = parsed["statements"]
    if (!Array.isArray(statements) || statements.length !== 1) {
      const count = Array.isArray(statements) ? statements.length : 0
      return Effect.fail(new ModelSqlInvalid({ model, detail: `expected exactly one SELECT, found ${count} statements` }))
    }
    const tables: Array<TableRef> = []
    const ctes = new Set<string>()
    collect(statements as ReadonlyArray<Json>, tables, ctes)
    const seen = new Map<string, TableRef>()
    for (const ref of tables) {
      const isCte = ref.catalog === undefined && ref.schema === undefined && ctes.has(ref.table.toLowerCase())
      if (!isCte) seen.set(formatTableRef(ref).toLowerCase(), ref)
    }
    return Effect.succeed([...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, ref]) => ref))
  })

const quote = (text: string) => `'${text.replace(/'/g, "''")}'`

/** Statements per DuckDB call: large batches amortise the call, small enough to keep memory flat. */
const batchSize = 500

const serializeBatch = async (
  connection: DuckDBConnection,
  sqls: ReadonlyArray<string>
): Promise<ReadonlyArray<string>> => {
  const values = sqls.map((sql, i) => `(${i}, ${quote(sql)})`).join(",")
  const reader = await connection.runAndReadAll(
    `SELECT json_serialize_sql(s)::VARCHAR FROM (VALUES ${values}) AS t(i, s) ORDER BY i`
  )
  return reader.getRowsJS().map((row) => String(row[0]))
}

/**
 * Parses every model's SQL with DuckDB's own parser (`json_serialize_sql`, batched) on a
 * private in-memory database and returns the tables each one reads. The first model whose
 * SQL fails to parse (in input order) fails the whole call with DuckDB's message.
 */
export const parseReferences = (
  items: ReadonlyArray<{ readonly model: string; readonly sql: string }>
): Effect.Effect<ReadonlyMap<string, ReadonlyArray<TableRef>>, ModelSqlInvalid | StatementFailed> =>
  Effect.scoped(
    Effect.gen(function* () {
      const instance = yield* acquireDuckDbInstance(":memory:")
      const connection = yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: () => instance.connect(),
          catch: (e) => new StatementFailed({ detail: String(e), transient: false })
        }),
        (c) => Effect.sync(() => c.closeSync())
      )
      const out = new Map<string, ReadonlyArray<TableRef>>()
      for (let start = 0; start < items.length; start += batchSize) {
        const batch = items.slice(start, start + batchSize)
        const serialized = yield* Effect.tryPromise({
          try: () => serializeBatch(connection, batch.map((item) => item.sql)),
          catch: (e) => new StatementFailed({ detail: e instanceof Error ? e.message : String(e), transient: false })
        })
        for (let i = 0; i < batch.length; i++) {
          const item = batch[i]!
          out.set(item.model, yield* referencesOf(serialized[i] ?? "null", item.model))
        }
      }
      return out as ReadonlyMap<string, ReadonlyArray<TableRef>>
    })
  )
