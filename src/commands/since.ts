import { Data, Either } from "effect"

export class InvalidSince extends Data.TaggedError("InvalidSince")<{ readonly value: string; readonly flag: string }> {
  readonly code = "invalid-since"
  override get message() {
    return `${this.flag} ${JSON.stringify(this.value)} is not a time: use YYYY-MM-DD (00:00 UTC), an RFC 3339 timestamp with an offset, or <N>d / <N>h`
  }
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/
const RELATIVE = /^(\d{1,6})([dh])$/

/** A calendar date that survives a UTC round trip (rejects 2026-02-30). */
const realDate = (y: string, m: string, d: string) => {
  const t = Date.UTC(Number(y), Number(m) - 1, Number(d))
  const back = new Date(t)
  return back.getUTCFullYear() === Number(y) && back.getUTCMonth() === Number(m) - 1 && back.getUTCDate() === Number(d)
}

/** `--since`/`--window` values: `YYYY-MM-DD` (00:00 UTC), RFC 3339 with an offset (to UTC), or `<N>d`/`<N>h` back from `now`. */
export const parseSince = (value: string, now: number, flag = "--since"): Either.Either<Date, InvalidSince> => {
  const bad = () => Either.left(new InvalidSince({ value, flag }))
  const date = DATE.exec(value)
  if (date !== null) return realDate(date[1]!, date[2]!, date[3]!) ? Either.right(new Date(`${value}T00:00:00.000Z`)) : bad()
  const stamp = RFC3339.exec(value)
  if (stamp !== null) {
    const [, y, mo, d, h, mi, s] = stamp
    if (!realDate(y!, mo!, d!) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return bad()
    const offset = stamp[8]!
    if (offset.length === 6 && (Number(offset.slice(1, 3)) > 23 || Number(offset.slice(4, 6)) > 59)) return bad()
    const t = Date.parse(value.replace(" ", "T"))
    return Number.isNaN(t) ? bad() : Either.right(new Date(t))
  }
  const rel = RELATIVE.exec(value)
  if (rel !== null) return Either.right(new Date(now - Number(rel[1]) * (rel[2] === "d" ? 86_400_000 : 3_600_000)))
  return bad()
}
