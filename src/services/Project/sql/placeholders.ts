// A time-interval model's window placeholders (`@start_date`, `@end_date`) in its SQL: what the run substitutes, and what the compile parses with.

const pad = (n: number, width = 2) => String(n).padStart(width, "0")

/** `'YYYY-MM-DD HH:MM:SS'` — the literal `@start_date` / `@end_date` become. */
const sqlTimestampLiteral = (date: Date): string =>
  `'${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}'`

/** Replaces `@start_date` / `@end_date` with timestamp literals (whole words only). */
export const substituteWindow = (sql: string, start: Date, end: Date): string =>
  sql.replace(/@start_date\b/g, sqlTimestampLiteral(start)).replace(/@end_date\b/g, sqlTimestampLiteral(end))

const epoch = new Date(0)

/**
 * The placeholder values compile parses with, so the parser sees valid SQL. Text without `@` has no
 * placeholder and is returned as it is (compile calls this for every model: 10,000 at a time).
 */
export const parseableSql = (sql: string): string => (sql.includes("@") ? substituteWindow(sql, epoch, epoch) : sql)
