import type { DuckDBConnection } from "@duckdb/node-api"
import { Effect, Either } from "effect"
import { acquireDuckDbInstance } from "../../Warehouse/duckdbInstance"
import { StatementFailed } from "../../Warehouse/Warehouse"
import { scanSerializedStatement } from "./astScan"
import { ModelSqlInvalid, type ModelSqlProblem } from "../errors"
import { fastTableReferences } from "./sqlFast"

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

const nonEmpty = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined

const pushTable = (node: { readonly [key: string]: unknown }, tables: Array<TableRef>) => {
  const table = nonEmpty(node["table_name"])
  if (table !== undefined) tables.push({ catalog: nonEmpty(node["catalog_name"]), schema: nonEmpty(node["schema_name"]), table })
}

/** Walks a serialized statement: base tables read, and CTE names (which are not tables). */
const collect = (node: Json, tables: Array<TableRef>, ctes: Set<string>): void => {
  if (Array.isArray(node)) {
    for (const child of node) collect(child, tables, ctes)
    return
  }
  if (!isObject(node)) return
  if (node["type"] === "BASE_TABLE") pushTable(node, tables)
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

/** Distinct tables, CTE names removed, sorted by their text (the last spelling of a name wins). */
const distinctReferences = (tables: ReadonlyArray<TableRef>, ctes: ReadonlySet<string>): ReadonlyArray<TableRef> => {
  const seen = new Map<string, TableRef>()
  for (const ref of tables) {
    const isCte = ref.catalog === undefined && ref.schema === undefined && ctes.has(ref.table.toLowerCase())
    if (!isCte) seen.set(formatTableRef(ref).toLowerCase(), ref)
  }
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, ref]) => ref)
}

/** Where a model's SQL came from, so a problem can name its file and line. */
export interface SqlSource {
  readonly file: string
  /** The text DuckDB parsed (its positions index into it). */
  readonly sql: string
}

/** 1-based line of a DuckDB parser position (a character offset into the text). */
const lineAt = (sql: string, position: number): number => [...sql].slice(0, Math.max(0, position)).join("").split("\n").length

/** The first keyword of a statement, comments skipped: what a non-SELECT model starts with. */
const leadingKeyword = (sql: string): string | undefined =>
  /^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*([A-Za-z]+)/.exec(sql)?.[1]?.toUpperCase()

const notSingleSelect = (found: string) => `a model must be a single SELECT query (found ${found})`

const problem = (model: string, source: SqlSource | undefined, detail: string, position?: number): ModelSqlInvalid =>
  new ModelSqlInvalid({
    problems: [
      {
        model,
        file: source?.file ?? model,
        ...(position === undefined || source === undefined ? {} : { line: lineAt(source.sql, position) }),
        detail
      } satisfies ModelSqlProblem
    ]
  })

/** Explains a failed serialization: DuckDB's parser message with its line, or what the text is instead of a SELECT. */
const describeError = (parsed: { readonly [key: string]: Json }, model: string, source: SqlSource | undefined) => {
  const message = typeof parsed["error_message"] === "string" ? parsed["error_message"] : "unparseable"
  if (parsed["error_type"] === "not implemented" && /only select statements/i.test(message)) {
    const keyword = source === undefined ? undefined : leadingKeyword(source.sql)
    return problem(model, source, notSingleSelect(keyword === undefined ? "another statement" : `${keyword} …`))
  }
  const position = typeof parsed["position"] === "string" ? Number(parsed["position"]) : undefined
  return problem(model, source, message, position !== undefined && Number.isFinite(position) ? position : undefined)
}

/** Distinct tables read by one serialized statement, by walking the whole parsed AST. */
export const referencesOf = (
  serialized: string,
  model: string,
  source?: SqlSource
): Effect.Effect<ReadonlyArray<TableRef>, ModelSqlInvalid> =>
  Effect.suspend(() => {
    const parsed = JSON.parse(serialized) as Json
    if (!isObject(parsed)) return Effect.fail(problem(model, source, "parser returned no statement"))
    if (parsed["error"] === true) return Effect.fail(describeError(parsed, model, source))
    const statements = parsed["statements"]
    if (!Array.isArray(statements) || statements.length !== 1) {
      const count = Array.isArray(statements) ? statements.length : 0
      return Effect.fail(problem(model, source, notSingleSelect(count === 0 ? "no statement" : `${count} statements`)))
    }
    const tables: Array<TableRef> = []
    const ctes = new Set<string>()
    collect(statements as ReadonlyArray<Json>, tables, ctes)
    return Effect.succeed(distinctReferences(tables, ctes))
  })

const successPrefix = '{"error":false,"statements":['

/**
 * Same result as `referencesOf`, decoding only the table objects and CTE keys when the text
 * is one well-formed statement (`statementCount` comes from DuckDB); anything else (parse
 * errors, several statements, an unexpected layout) goes through the full walk.
 */
export const fastReferencesOf = (
  serialized: string,
  statementCount: number | undefined,
  model: string,
  source?: SqlSource
): Effect.Effect<ReadonlyArray<TableRef>, ModelSqlInvalid> => {
  if (statementCount !== 1 || !serialized.startsWith(successPrefix)) return referencesOf(serialized, model, source)
  const scanned = scanSerializedStatement(serialized)
  if (scanned === undefined) return referencesOf(serialized, model, source)
  const tables: Array<TableRef> = []
  for (const node of scanned.tables) pushTable(node as unknown as { readonly [key: string]: unknown }, tables)
  return Effect.succeed(distinctReferences(tables, scanned.ctes))
}

/** Statements per DuckDB call: large batches amortise the call, small enough to keep memory flat. */
const batchSize = 500
/** Connections parsing batches at once by default: DuckDB runs each on a libuv pool thread. */
const defaultLanes = 2

export interface SerializedStatement {
  /** `json_serialize_sql` output. */
  readonly json: string
  /** Length of its `statements` array; undefined when serialization failed. */
  readonly statementCount: number | undefined
}

/**
 * Serializes each SQL text with DuckDB's parser, in input order. `compact` drops null and
 * empty fields inside DuckDB (about half the text to build, copy and scan); an absent name
 * part reads like the empty string it replaces.
 */
export const serializeBatch = async (
  connection: DuckDBConnection,
  sqls: ReadonlyArray<string>,
  compact = true
): Promise<ReadonlyArray<SerializedStatement>> => {
  // Loaded lazily like the embedded warehouse, so importing the compiler does not load DuckDB.
  const { listValue } = await import("@duckdb/node-api")
  const options = compact ? ", skip_null := true, skip_empty := true" : ""
  // The texts travel as one VARCHAR[] parameter: DuckDB does not parse them twice (as literals, then as SQL).
  const reader = await connection.runAndReadAll(
    `SELECT j::VARCHAR, json_array_length(j, '$.statements') FROM ` +
      `(SELECT i, json_serialize_sql(s${options}) AS j FROM ` +
      `(SELECT unnest(generate_series(1, len($1::VARCHAR[]))) AS i, unnest($1::VARCHAR[]) AS s)) ORDER BY i`,
    [listValue([...sqls])]
  )
  return reader.getRowsJS().map((row) => ({
    json: String(row[0]),
    statementCount: row[1] === null || row[1] === undefined ? undefined : Number(row[1])
  }))
}

const connect = (instance: { connect: () => Promise<DuckDBConnection> }) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () => instance.connect(),
      catch: (e) => new StatementFailed({ detail: String(e), transient: false })
    }),
    (c) => Effect.sync(() => c.closeSync())
  )

/**
 * Parses every model's SQL with DuckDB's own parser (`json_serialize_sql`, batched, two
 * connections at once) on a private in-memory database and returns the tables each one
 * reads. Every model whose SQL fails to parse (or is not a single SELECT) is collected, in
 * input order, into one `ModelSqlInvalid` naming each file and line.
 */
export const parseReferences = (
  items: ReadonlyArray<{ readonly model: string; readonly sql: string; readonly file?: string }>,
  options: { readonly lanes?: number } = {}
): Effect.Effect<ReadonlyMap<string, ReadonlyArray<TableRef>>, ModelSqlInvalid | StatementFailed> =>
  Effect.suspend(() => {
    // The pure-TypeScript reader answers for the SQL it fully recognises; DuckDB parses the rest
    // (and only then is loaded). It never answers for text DuckDB rejects, so errors are DuckDB's.
    const out = new Map<string, ReadonlyArray<TableRef>>()
    const rest: Array<(typeof items)[number]> = []
    for (const item of items) {
      const refs = fastTableReferences(item.sql)
      if (refs === undefined) rest.push(item)
      else out.set(item.model, refs)
    }
    if (rest.length === 0) return Effect.succeed(out as ReadonlyMap<string, ReadonlyArray<TableRef>>)
    return Effect.map(parseReferencesWithDuckDb(rest, options), (parsed) => {
      for (const [model, refs] of parsed) out.set(model, refs)
      return out as ReadonlyMap<string, ReadonlyArray<TableRef>>
    })
  })

/** `parseReferences` with DuckDB's parser for every item: the reference the fast reader is tested against. */
export const parseReferencesWithDuckDb = (
  items: ReadonlyArray<{ readonly model: string; readonly sql: string; readonly file?: string }>,
  options: { readonly lanes?: number } = {}
): Effect.Effect<ReadonlyMap<string, ReadonlyArray<TableRef>>, ModelSqlInvalid | StatementFailed> =>
  Effect.scoped(
    Effect.gen(function* () {
      const lanes = Math.max(1, options.lanes ?? defaultLanes)
      const instance = yield* acquireDuckDbInstance(":memory:")
      const results: Array<Either.Either<ReadonlyArray<TableRef>, ModelSqlInvalid>> = new Array(items.length)
      const batchStarts: Array<number> = []
      for (let start = 0; start < items.length; start += batchSize) batchStarts.push(start)
      const lane = (index: number) =>
        Effect.gen(function* () {
          const connection = yield* connect(instance)
          for (let b = index; b < batchStarts.length; b += lanes) {
            const start = batchStarts[b]!
            const batch = items.slice(start, start + batchSize)
            const serialized = yield* Effect.tryPromise({
              try: () => serializeBatch(connection, batch.map((item) => item.sql)),
              catch: (e) => new StatementFailed({ detail: e instanceof Error ? e.message : String(e), transient: false })
            })
            for (let i = 0; i < batch.length; i++) {
              const s = serialized[i]
              const item = batch[i]!
              const source = { file: item.file ?? item.model, sql: item.sql }
              results[start + i] = yield* Effect.either(
                fastReferencesOf(s?.json ?? "null", s?.statementCount, item.model, source)
              )
            }
          }
        })
      yield* Effect.forEach(
        Array.from({ length: Math.min(lanes, batchStarts.length) }, (_, i) => i),
        lane,
        { concurrency: lanes, discard: true }
      )
      const out = new Map<string, ReadonlyArray<TableRef>>()
      const problems: Array<ModelSqlProblem> = []
      for (let i = 0; i < items.length; i++) {
        const result = results[i]!
        if (Either.isLeft(result)) problems.push(...result.left.problems)
        else out.set(items[i]!.model, result.right)
      }
      if (problems.length > 0) return yield* new ModelSqlInvalid({ problems })
      return out as ReadonlyMap<string, ReadonlyArray<TableRef>>
    })
  )

const integerTypeIds = new Set(["TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT"])

/**
 * Output columns (lower case) whose top-level select expression is an integer literal with an
 * alias, parsed by DuckDB on a private in-memory database. Anything it cannot tell yields none.
 */
export const integerLiteralColumns = (sql: string): Effect.Effect<ReadonlySet<string>> =>
  Effect.scoped(
    Effect.gen(function* () {
      const instance = yield* acquireDuckDbInstance(":memory:")
      const connection = yield* connect(instance)
      const [serialized] = yield* Effect.tryPromise(() => serializeBatch(connection, [sql], false))
      const parsed = JSON.parse(serialized?.json ?? "null") as Json
      const statements = isObject(parsed) ? parsed["statements"] : undefined
      const first = Array.isArray(statements) && statements.length === 1 ? (statements[0] as Json) : undefined
      const node = isObject(first) ? first["node"] : undefined
      const list = isObject(node) && node["type"] === "SELECT_NODE" ? node["select_list"] : undefined
      const names = new Set<string>()
      for (const expr of Array.isArray(list) ? (list as ReadonlyArray<Json>) : []) {
        if (!isObject(expr) || expr["class"] !== "CONSTANT" || typeof expr["alias"] !== "string" || expr["alias"] === "") continue
        const value = expr["value"]
        const type = isObject(value) ? value["type"] : undefined
        if (isObject(type) && typeof type["id"] === "string" && integerTypeIds.has(type["id"])) names.add(expr["alias"].toLowerCase())
      }
      return names as ReadonlySet<string>
    })
  ).pipe(Effect.orElseSucceed(() => new Set<string>()))
