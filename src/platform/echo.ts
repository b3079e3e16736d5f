/** What an error message may show of text taken from a config file or the environment. */

/** Longest piece of user text an error echoes (characters). */
export const ECHO_LIMIT = 200

// C0/C1 controls, DEL and the bidi overrides: each could move the cursor, recolour or reorder a terminal line.
const unsafe = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

/** Shows each control character as a visible `\uXXXX`, so an echo is one inert line. */
export const sanitize = (text: string): string =>
  text.replace(unsafe, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`)

// The same set less newline and tab, which a multi-line report needs.
const unsafeInLines = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

/** A multi-line report made inert: line breaks stay, every other control shows as `\uXXXX`. */
export const sanitizeLines = (text: string): string =>
  text.replace(unsafeInLines, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`)

/** Cuts text to `max` code points with an ellipsis; never splits a surrogate pair. */
export const truncate = (text: string, max: number = ECHO_LIMIT): string => {
  if (text.length <= max) return text
  let units = 0
  for (let points = 0; units < text.length && points < max; points++) units += text.codePointAt(units)! > 0xffff ? 2 : 1
  return units >= text.length ? text : `${text.slice(0, units)}…`
}

/** One echoed value: cut to the limit, then made inert. */
export const echo = (text: string, max: number = ECHO_LIMIT): string => sanitize(truncate(text, max))

/**
 * Cuts every double-quoted literal longer than `max` inside a message (the values a schema
 * message quotes), leaving the words around them; one linear scan.
 */
export const clipQuoted = (message: string, max: number = ECHO_LIMIT): string => {
  let out = ""
  let i = 0
  while (i < message.length) {
    const open = message.indexOf('"', i)
    if (open === -1) break
    let close = open + 1
    while (close < message.length && message[close] !== '"') close += message[close] === "\\" ? 2 : 1
    out += message.slice(i, open)
    const inner = message.slice(open + 1, Math.min(close, message.length))
    out += `"${truncate(inner, max)}${close < message.length ? '"' : ""}`
    i = close + 1
  }
  return out + message.slice(i)
}

/** A kind of TOML value in words, for messages that must not show the value itself. */
export const kindOf = (value: unknown): string => {
  if (value === undefined) return "nothing"
  if (typeof value === "string") return "a string"
  if (typeof value === "bigint" || (typeof value === "number" && Number.isInteger(value))) return "an integer"
  if (typeof value === "number") return "a float"
  if (typeof value === "boolean") return "a boolean"
  if (value instanceof Date) return "a date-time"
  if (Array.isArray(value)) return "an array"
  return "a table"
}

/** Keeps the head and the tail of a long text (a key path's or a file name's ends say the most). */
export const elide = (text: string, max: number = ECHO_LIMIT): string => {
  if (text.length <= max) return text
  const head = Math.floor(max / 3)
  const tail = text.slice(text.length - (max - head))
  return `${truncate(text, head).slice(0, -1)}…${/^[\udc00-\udfff]/.test(tail) ? tail.slice(1) : tail}`
}
