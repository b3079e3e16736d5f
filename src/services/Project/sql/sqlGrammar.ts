// The grammar data the fast SQL reader (sqlFast.ts) checks against, and how it gives up.

/** Thrown inside the reader when the text leaves the grammar it knows. */
export const unsure: unique symbol = Symbol("unsure")

export const fail = (): never => {
  throw unsure
}

/** Type names accepted after `::` and in CAST; those marked take `(n)` / `(p, s)`. */
export const typeNames = new Map<string, number>([
  ["boolean", 0], ["bool", 0], ["tinyint", 0], ["smallint", 0], ["integer", 0], ["int", 0], ["bigint", 0],
  ["hugeint", 0], ["utinyint", 0], ["usmallint", 0], ["uinteger", 0], ["ubigint", 0], ["real", 0], ["float", 0],
  ["double", 0], ["decimal", 2], ["numeric", 2], ["varchar", 1], ["text", 0], ["date", 0], ["time", 0],
  ["timestamp", 0], ["timestamptz", 0], ["blob", 0], ["uuid", 0], ["json", 0], ["interval", 0]
])
/** Units after `INTERVAL 'n'` / `INTERVAL n` and in `extract(unit FROM …)`. */
export const intervalUnits = new Set(["year", "years", "month", "months", "week", "weeks", "day", "days", "hour", "hours", "minute", "minutes", "second", "seconds"])
/** Words that may precede a string to make a typed literal (`DATE '2024-01-01'`). */
export const typedLiterals = new Set(["date", "timestamp", "time"])
/** DuckDB's own window functions and the argument counts always accepted with OVER. */
export const windowFunctionArguments = new Map<string, readonly [number, number]>([
  ["row_number", [0, 0]], ["rank", [0, 0]], ["dense_rank", [0, 0]], ["rank_dense", [0, 0]], ["percent_rank", [0, 0]],
  ["cume_dist", [0, 0]], ["ntile", [1, 1]], ["lag", [1, 3]], ["lead", [1, 3]], ["first_value", [1, 1]], ["first", [1, 1]],
  ["last_value", [1, 1]], ["last", [1, 1]], ["nth_value", [2, 2]], ["fill", [1, 1]], ["any_value", [1, 1]]
])
export const comparison = new Set(["=", "<", ">", "<=", ">=", "<>", "!="])

// Binding powers, after DuckDB's grammar (PostgreSQL's precedence table).
export const OR = 1
export const AND = 2
export const NOT = 3
export const IS = 4
export const COMPARE = 5
export const LIKE = 6
export const CONCAT = 7
export const ADD = 8
export const MUL = 9
export const UNARY = 11
