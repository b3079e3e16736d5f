/**
 * Conservative determinism scan of recorded SQL through DuckDB's own parser
 * (`json_serialize_sql`): anything not provably pure is volatile, so a doubt keeps the artifact.
 */
import type { DuckDBConnection } from "@duckdb/node-api"
import { Effect } from "effect"
import { acquireDuckDbInstance } from "../Warehouse/duckdbInstance"

/** Builtins that read the clock, a random source, the session or the environment. */
export const VOLATILE_WORDS: ReadonlySet<string> = new Set([
  "now", "current_timestamp", "current_date", "current_time", "localtimestamp", "localtime", "get_current_timestamp",
  "get_current_time", "transaction_timestamp", "today", "getdate", "sysdate", "unix_timestamp", "epoch_ms_now",
  "random", "rand", "randn", "setseed", "uuid", "uuidv4", "uuidv7", "newid", "gen_random_uuid", "nextval", "currval",
  "current_user", "session_user", "system_user", "user", "current_role", "current_catalog", "current_schema",
  "current_schemas", "current_database", "current_setting", "current_query", "getenv", "getvariable", "txid_current", "version"
])

/** Scalar, aggregate and window functions whose result depends only on their arguments (and order-insensitively so for aggregates). */
export const PURE_FUNCTIONS: ReadonlySet<string> = new Set([
  // aggregates (order-insensitive only: no any_value, array_agg, list, string_agg, mode, first, last)
  "count", "count_star", "sum", "avg", "mean", "min", "max", "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp",
  "bool_and", "bool_or", "bit_and", "bit_or", "bit_xor", "median", "quantile_cont", "quantile_disc", "product", "fsum", "sumkahan",
  // null and conditional helpers, casts
  "coalesce", "nullif", "ifnull", "if", "greatest", "least", "try_cast", "typeof",
  // math
  "abs", "ceil", "ceiling", "floor", "round", "trunc", "sign", "sqrt", "cbrt", "power", "pow", "exp", "ln", "log", "log10", "log2",
  "mod", "degrees", "radians", "pi", "isnan", "isinf", "isfinite", "gcd", "lcm", "factorial", "even",
  // strings
  "lower", "upper", "lcase", "ucase", "length", "len", "strlen", "trim", "ltrim", "rtrim", "substr", "substring", "replace", "concat",
  "concat_ws", "left", "right", "lpad", "rpad", "split_part", "position", "strpos", "instr", "starts_with", "prefix", "suffix",
  "ends_with", "contains", "reverse", "repeat", "regexp_replace", "regexp_matches", "regexp_extract", "regexp_full_match",
  "translate", "ascii", "chr", "format", "printf", "like_escape", "string_split", "str_split", "initcap",
  // dates (arithmetic on values, never the clock)
  "date_trunc", "datetrunc", "date_part", "datepart", "extract", "date_diff", "datediff", "date_sub", "datesub", "date_add",
  "make_date", "make_time", "make_timestamp", "year", "month", "day", "hour", "minute", "second", "dayofweek", "dayofyear",
  "week", "quarter", "epoch", "epoch_ms", "to_timestamp", "strftime", "strptime", "last_day", "to_days", "to_hours",
  "to_minutes", "to_seconds", "to_months", "to_years",
  // window ranking and offsets
  "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead", "first_value", "last_value", "nth_value",
  // structured values and hashes
  "struct_pack", "row", "list_value", "array_value", "map", "array_length", "list_extract", "array_extract", "struct_extract",
  "list_contains", "array_contains", "list_sort", "array_sort", "cardinality", "md5", "sha1", "sha256", "hash", "crc32"
])

/** Table functions that produce rows from their arguments alone (everything else reads something external). */
export const PURE_TABLE_FUNCTIONS: ReadonlySet<string> = new Set(["generate_series", "range", "unnest"])

export type Determinism = { readonly volatile: false } | { readonly volatile: true; readonly reason: string }

const volatile = (reason: string): Determinism => ({ volatile: true, reason })
const PURE: Determinism = { volatile: false }

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [k: string]: Json }
type Node = { readonly [k: string]: Json }

const isNode = (j: Json): j is Node => j !== null && typeof j === "object" && !Array.isArray(j)
const str = (j: Json | undefined): string | undefined => (typeof j === "string" ? j : undefined)

/** Operators (`+`, `~~`, `||`, …) are spelled as symbols; they compute on their operands alone. */
const isOperatorName = (name: string) => /^[^a-z_]+$/.test(name)

/** First volatile construct found in one serialized AST node, depth-first. */
const walk = (j: Json): Determinism => {
  if (Array.isArray(j)) {
    for (const child of j as ReadonlyArray<Json>) {
      const found = walk(child)
      if (found.volatile) return found
    }
    return PURE
  }
  if (!isNode(j)) return PURE
  const cls = str(j["class"])
  const type = str(j["type"])
  const fn = str(j["function_name"])?.toLowerCase()
  if (type === "TABLE_FUNCTION") {
    const inner = j["function"]
    const name = inner !== undefined && isNode(inner) ? (str(inner["function_name"]) ?? "?").toLowerCase() : "?"
    if (!PURE_TABLE_FUNCTIONS.has(name)) return volatile(`table function ${name}() reads outside the recorded inputs`)
  }
  if (type === "BASE_TABLE" && /[./\\:]/.test(str(j["table_name"]) ?? "")) {
    return volatile(`FROM '${str(j["table_name"])}' reads a file outside the recorded inputs`)
  }
  if (fn !== undefined && (cls === "FUNCTION" || cls === "WINDOW" || cls === "AGGREGATE")) {
    if (VOLATILE_WORDS.has(fn)) return volatile(`volatile builtin ${fn}`)
    if (!isOperatorName(fn) && !PURE_FUNCTIONS.has(fn) && !PURE_TABLE_FUNCTIONS.has(fn)) return volatile(`function ${fn}() is not on the pure allowlist`)
  }
  if (cls === "COLUMN_REF") {
    const names = j["column_names"]
    const only = Array.isArray(names) && names.length === 1 ? str(names[0])?.toLowerCase() : undefined
    // DuckDB parses `current_date`, `user`, … without parentheses as column references.
    if (only !== undefined && VOLATILE_WORDS.has(only)) return volatile(`volatile builtin ${only}`)
  }
  if (j["sample"] !== undefined && j["sample"] !== null) return volatile("SAMPLE draws random rows")
  const modifiers = j["modifiers"]
  if (Array.isArray(modifiers)) {
    const kinds = (modifiers as ReadonlyArray<Json>).map((m) => (isNode(m) ? str(m["type"]) : undefined))
    const limited = kinds.some((k) => k === "LIMIT_MODIFIER" || k === "LIMIT_PERCENT_MODIFIER")
    if (limited && !kinds.includes("ORDER_MODIFIER")) return volatile("LIMIT without ORDER BY")
  }
  for (const value of Object.values(j)) {
    const found = walk(value)
    if (found.volatile) return found
  }
  return PURE
}

/** Verdict for one `json_serialize_sql` answer: a parse error or anything but one SELECT is volatile. */
export const classifySerialized = (serialized: string): Determinism => {
  let parsed: Json
  try {
    parsed = JSON.parse(serialized) as Json
  } catch {
    return volatile("the parser's answer does not parse")
  }
  if (!isNode(parsed)) return volatile("the parser's answer is not an object")
  if (parsed["error"] === true) return volatile(`not a single parseable query: ${str(parsed["error_message"]) ?? "parse error"}`)
  const statements = parsed["statements"]
  if (!Array.isArray(statements) || statements.length !== 1) return volatile("not exactly one query")
  return walk((statements[0] ?? null) as Json)
}

const serializeAll = (connection: DuckDBConnection, sqls: ReadonlyArray<string>) =>
  Effect.promise(async () => {
    const { listValue } = await import("@duckdb/node-api")
    const prepared = await connection.prepare("SELECT json_serialize_sql(s) FROM unnest($1::VARCHAR[]) WITH ORDINALITY AS u(s, i) ORDER BY i")
    prepared.bind([listValue([...sqls])])
    return (await prepared.runAndReadAll()).getRowsJS().map((r) => String(r[0]))
  })

/**
 * Scans each distinct SQL text once, in a private in-memory DuckDB. If the parser itself cannot
 * be reached every text is volatile: the scan fails closed, never open.
 */
export const scanDeterminism = (sqls: Iterable<string>): Effect.Effect<ReadonlyMap<string, Determinism>> => {
  const distinct = [...new Set(sqls)]
  const verdicts = new Map<string, Determinism>()
  const empty = distinct.filter((s) => s.trim() === "")
  for (const s of empty) verdicts.set(s, volatile("empty SQL"))
  const texts = distinct.filter((s) => s.trim() !== "")
  if (texts.length === 0) return Effect.succeed(verdicts)
  return Effect.scoped(
    Effect.gen(function* () {
      const instance = yield* acquireDuckDbInstance(":memory:")
      const connection = yield* Effect.acquireRelease(Effect.promise(() => instance.connect()), (c) => Effect.sync(() => c.closeSync()))
      return yield* serializeAll(connection, texts)
    })
  ).pipe(
    Effect.catchAllCause((cause) => Effect.succeed(texts.map(() => JSON.stringify({ error: true, error_message: `SQL parser unavailable: ${String(cause).split("\n")[0]}` })))),
    Effect.map((answers) => {
      texts.forEach((s, i) => verdicts.set(s, classifySerialized(answers[i] ?? "")))
      return verdicts
    })
  )
}
