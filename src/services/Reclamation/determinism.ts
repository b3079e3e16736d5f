/**
 * Conservative determinism scan of recorded SQL: anything not provably pure is volatile, so a
 * doubt keeps the artifact. A function is pure only when it is on the allowlist below.
 */
const VOLATILE_WORDS = new Set([
  "now", "current_timestamp", "current_date", "current_time", "localtimestamp", "localtime", "getdate", "sysdate",
  "unix_timestamp", "random", "rand", "randn", "uuid", "newid", "gen_random_uuid", "current_user", "session_user",
  "system_user", "user", "current_role", "current_catalog", "current_schema", "current_database", "current_setting", "setseed"
])

const PURE_FUNCTIONS = new Set([
  // aggregates (order-insensitive only)
  "count", "sum", "avg", "min", "max", "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp", "bool_and", "bool_or",
  // null and conditional helpers, casts
  "coalesce", "nullif", "ifnull", "if", "greatest", "least", "cast", "try_cast",
  // math
  "abs", "ceil", "ceiling", "floor", "round", "trunc", "sign", "sqrt", "power", "pow", "exp", "ln", "log", "log10", "log2", "mod",
  // strings
  "lower", "upper", "length", "trim", "ltrim", "rtrim", "substr", "substring", "replace", "concat", "concat_ws", "left", "right",
  "lpad", "rpad", "split_part", "position", "strpos", "starts_with", "ends_with", "contains", "reverse", "repeat", "regexp_replace", "regexp_matches",
  // dates (arithmetic on values, never the clock)
  "date_trunc", "date_part", "extract", "date_diff", "datediff", "date_add", "make_date", "year", "month", "day", "hour", "minute", "second",
  // window ranking
  "row_number", "rank", "dense_rank", "ntile", "lag", "lead", "first_value", "last_value",
  // structured values and hashes
  "struct_pack", "list_value", "array_length", "md5", "sha1", "sha256", "hash", "crc32",
  // SQL keywords that take parentheses
  "in", "exists", "any", "all", "over", "filter", "values", "as", "on", "using", "and", "or", "not", "from", "select", "where", "when", "then", "else", "case", "interval", "distinct", "by", "between", "like", "is", "join", "union", "intersect", "except", "with", "group", "order", "partition", "rows", "range", "preceding", "following", "current", "row", "unbounded", "asc", "desc", "nulls", "first", "last", "limit", "offset", "into", "set", "end", "lateral", "cross", "inner", "outer", "left", "right", "full", "natural"
])

export type Determinism = { readonly volatile: false } | { readonly volatile: true; readonly reason: string }

/** Strips comments and string literals so words inside them are not read as code. */
const codeOnly = (sql: string) =>
  sql
    .replace(/--[^\n]*/g, " ")
    .replace(/\/\*[\s\S]*?\*\//g, " ")
    .replace(/'(?:[^']|'')*'/g, "''")

/** Volatile when it calls anything off the allowlist, names a volatile builtin, or LIMITs without ORDER BY. */
export const scanDeterminism = (sql: string): Determinism => {
  const code = codeOnly(sql).toLowerCase()
  if (code.trim() === "") return { volatile: false }
  if (/\"/.test(code)) {
    // Quoted identifiers can hide a function name; keep the scan honest rather than clever.
    const unquoted = code.replace(/"(?:[^"]|"")*"/g, "x")
    return scanWords(unquoted)
  }
  return scanWords(code)
}

const scanWords = (code: string): Determinism => {
  for (const m of code.matchAll(/\b([a-z_][a-z0-9_]*)\b(\s*\()?/g)) {
    const word = m[1]!
    if (VOLATILE_WORDS.has(word)) return { volatile: true, reason: `volatile builtin ${word}` }
    if (m[2] !== undefined && !PURE_FUNCTIONS.has(word)) return { volatile: true, reason: `function ${word}() is not on the pure allowlist` }
  }
  if (/\blimit\b|\bfetch\b/.test(code) && !/\border\s+by\b/.test(code)) return { volatile: true, reason: "LIMIT without ORDER BY" }
  return { volatile: false }
}
