/**
 * `Retry-After` as milliseconds from `nowMillis`: integer seconds or an HTTP-date.
 * Past dates, negatives, blanks and garbage give `undefined` (use the back-off instead).
 */
export const parseRetryAfter = (header: string | undefined, nowMillis: number): number | undefined => {
  if (header === undefined) return undefined
  const text = header.trim()
  if (text === "") return undefined
  if (/^\d+$/.test(text)) return Number(text) * 1000
  if (/^-/.test(text) || /^[\d.]+$/.test(text)) return undefined
  const at = Date.parse(text)
  if (Number.isNaN(at) || at <= nowMillis) return undefined
  return at - nowMillis
}
