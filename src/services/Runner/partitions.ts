import type { Granularity } from "../../schemas/model"

const keyPatterns: Record<Granularity, RegExp> = {
  hour: /^(\d{4})-(\d{2})-(\d{2})T(\d{2})$/,
  day: /^(\d{4})-(\d{2})-(\d{2})$/,
  month: /^(\d{4})-(\d{2})$/,
  year: /^(\d{4})$/
}

/** How a canonical key of each granularity is written, for error messages. */
export const partitionKeyFormat: Record<Granularity, string> = {
  hour: "YYYY-MM-DDTHH",
  day: "YYYY-MM-DD",
  month: "YYYY-MM",
  year: "YYYY"
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0")

/** Canonical partition key of the partition starting at `start` (UTC). */
export const formatPartitionKey = (start: Date, granularity: Granularity): string => {
  const y = pad(start.getUTCFullYear(), 4)
  const m = pad(start.getUTCMonth() + 1)
  const d = pad(start.getUTCDate())
  switch (granularity) {
    case "year":
      return y
    case "month":
      return `${y}-${m}`
    case "day":
      return `${y}-${m}-${d}`
    case "hour":
      return `${y}-${m}-${d}T${pad(start.getUTCHours())}`
  }
}

/** Start of the partition a key names, or undefined when the key is not canonical for the granularity. */
export const parsePartitionKey = (key: string, granularity: Granularity): Date | undefined => {
  const match = keyPatterns[granularity].exec(key)
  if (match === null) return undefined
  const [, y, m = "01", d = "01", h = "00"] = match
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d), Number(h)))
  return formatPartitionKey(date, granularity) === key ? date : undefined
}

export const nextPartitionStart = (start: Date, granularity: Granularity): Date => {
  const next = new Date(start.getTime())
  switch (granularity) {
    case "hour":
      next.setUTCHours(next.getUTCHours() + 1)
      break
    case "day":
      next.setUTCDate(next.getUTCDate() + 1)
      break
    case "month":
      next.setUTCMonth(next.getUTCMonth() + 1)
      break
    case "year":
      next.setUTCFullYear(next.getUTCFullYear() + 1)
      break
  }
  return next
}

/** `'YYYY-MM-DD HH:MM:SS'` — the literal `@start_date` / `@end_date` become. */
export const sqlTimestampLiteral = (date: Date): string =>
  `'${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}'`

export interface PartitionWindow {
  readonly key: string
  readonly start: Date
  readonly end: Date
}

/** Every partition from `from` to `to`, both inclusive; undefined when a key is invalid or `to < from`. */
export const partitionsBetween = (
  from: string,
  to: string,
  granularity: Granularity
): ReadonlyArray<PartitionWindow> | undefined => {
  const first = parsePartitionKey(from, granularity)
  const last = parsePartitionKey(to, granularity)
  if (first === undefined || last === undefined || last < first) return undefined
  const out: Array<PartitionWindow> = []
  for (let start = first; start <= last; start = nextPartitionStart(start, granularity)) {
    out.push({ key: formatPartitionKey(start, granularity), start, end: nextPartitionStart(start, granularity) })
  }
  return out
}

/** Replaces `@start_date` / `@end_date` with timestamp literals (whole words only). */
export const substituteWindow = (sql: string, start: Date, end: Date): string =>
  sql.replace(/@start_date\b/g, sqlTimestampLiteral(start)).replace(/@end_date\b/g, sqlTimestampLiteral(end))

const epoch = new Date(0)

/**
 * The placeholder values compile parses with, so the parser sees valid SQL. Text without `@` has no
 * placeholder and is returned as it is (compile calls this for every model: 10,000 at a time).
 */
export const parseableSql = (sql: string): string => (sql.includes("@") ? substituteWindow(sql, epoch, epoch) : sql)
