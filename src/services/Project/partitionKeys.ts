import type { Granularity } from "../../schemas/model"

// A time-interval model's partition keys: the compile checks `first_partition` with them, the run walks them (Runner/partitions.ts).

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
