import type { Granularity } from "../../schemas/model"
import { formatPartitionKey, parsePartitionKey } from "../Project/partitionKeys"

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
