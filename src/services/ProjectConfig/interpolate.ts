import { Effect } from "effect"
import { MissingEnvVar } from "./errors"

const reference = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/y

/** Where a `${VAR}` sits in TOML text, which decides how its value is written there. */
type Context = "bare" | "basic" | "literal"

/** A TOML number, boolean or date-time: the only values an unquoted `${VAR}` inserts as they are. */
const scalar =
  /^(?:true|false|[+-]?(?:inf|nan)|[+-]?[0-9][0-9_]*(?:\.[0-9_]+)?(?:[eE][+-]?[0-9_]+)?|0x[0-9A-Fa-f_]+|0o[0-7_]+|0b[01_]+|\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?|\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/

const shortEscapes: Readonly<Record<string, string>> = { "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r", '"': '\\"', "\\": "\\\\" }

/** Escapes text for a TOML basic string; `keepNewlines` for a multi-line one, so lines stay where they were. */
const escapeBasic = (value: string, keepNewlines = false): string =>
  value.replace(/[\u0000-\u001f\u007f"\\]/g, (ch) =>
    keepNewlines && (ch === "\n" || ch === "\r")
      ? ch
      : (shortEscapes[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`)
  )

/** A value a `'…'` string can hold as it is (no `'`, no control character but tab). */
const literalSafe = (value: string) => !/['\u0000-\u0008\u000a-\u001f\u007f]/.test(value)

/** Marks an unset variable's place; found again in the parsed data to tell which block it is in. */
export const UNSET_OPEN = "\uE000"
export const UNSET_CLOSE = "\uE001"
const unsetMarker = (index: number) => `${UNSET_OPEN}${index}${UNSET_CLOSE}`

/** A `${VAR}` whose variable is not set, by its order in the file. */
export interface UnsetReference {
  readonly variable: string
  readonly line: number
}

export interface Substituted {
  /** The text with every set variable written in and every unset one marked; same lines as the input. */
  readonly text: string
  /** Unset references; the marker of the i-th one is `UNSET_OPEN + i + UNSET_CLOSE`. */
  readonly unset: ReadonlyArray<UnsetReference>
}

/**
 * Writes each `${VAR}` outside comments with its value, as the place it sits in allows:
 * escaped inside `"…"` strings; inside `'…'` strings as is, or, when the value holds a `'` or a
 * control character, by turning that string into a `"…"` one; outside strings a number, boolean or
 * date-time as is and anything else as a quoted string, so no value can add keys or tables. A
 * variable that is not set leaves a marker instead. One pass over the text.
 */
export const substituteDeferred = (text: string, env: Readonly<Record<string, string | undefined>>): Substituted => {
  const unset: Array<UnsetReference> = []
  let out = ""
  let line = 1
  // Inside a string: its kind, whether multi-line, and (for a literal string turned basic) where it opened in `out`.
  let string: { kind: "basic" | "literal"; multi: boolean; converted: boolean; openedAt: number } | undefined
  let comment = false

  const convertLiteral = () => {
    if (string === undefined || string.converted) return
    const delimiter = string.multi ? '"""' : '"'
    const body = out.slice(string.openedAt + delimiter.length)
    out = `${out.slice(0, string.openedAt)}${delimiter}${escapeBasic(body, string.multi)}`
    string.converted = true
  }

  const write = (value: string, at: Context) => {
    if (at === "basic") out += escapeBasic(value)
    else if (at === "literal") {
      if (!literalSafe(value)) convertLiteral()
      out += string?.converted === true ? escapeBasic(value) : value
    } else out += scalar.test(value) ? value : `"${escapeBasic(value)}"`
  }

  let i = 0
  while (i < text.length) {
    const ch = text[i]!
    if (ch === "\n") {
      line++
      comment = false
      // A single-line string ends at the line's end (the parser reports it if unterminated).
      if (string !== undefined && !string.multi) string = undefined
      out += ch
      i++
      continue
    }
    if (comment) {
      out += ch
      i++
      continue
    }
    if (ch === "$" && text[i + 1] === "{") {
      reference.lastIndex = i
      const match = reference.exec(text)
      if (match !== null) {
        const name = match[1]!
        const value = env[name]
        const at: Context = string === undefined ? "bare" : string.kind === "basic" || string.converted ? "basic" : "literal"
        if (value === undefined) {
          out += at === "bare" ? `"${unsetMarker(unset.length)}"` : unsetMarker(unset.length)
          unset.push({ variable: name, line })
        } else {
          write(value, at)
        }
        i += match[0].length
        continue
      }
    }
    if (string === undefined) {
      if (ch === "#") comment = true
      else if (ch === '"' || ch === "'") {
        const multi = text.startsWith(ch.repeat(3), i)
        string = { kind: ch === '"' ? "basic" : "literal", multi, converted: false, openedAt: out.length }
        out += multi ? ch.repeat(3) : ch
        i += multi ? 3 : 1
        continue
      }
      out += ch
      i++
      continue
    }
    // An escape's next character is never a closing quote; a line-ending backslash leaves the newline to the loop.
    if (string.kind === "basic" && ch === "\\" && text[i + 1] !== "\n") {
      out += text.slice(i, i + 2)
      i += 2
      continue
    }
    const closer = string.kind === "basic" ? '"' : "'"
    if (ch === closer && (!string.multi || text.startsWith(closer.repeat(3), i))) {
      const width = string.multi ? 3 : 1
      out += string.converted ? '"'.repeat(width) : closer.repeat(width)
      i += width
      string = undefined
      continue
    }
    out += string.converted ? escapeBasic(ch, string.multi) : ch
    i++
  }
  return { text: out, unset }
}

/**
 * Substitutes every `${VAR}` (see substituteDeferred); a variable that is not set fails
 * with the file and the line of its first reference.
 */
export const substituteEnvVars = (
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  file: string
): Effect.Effect<string, MissingEnvVar> =>
  Effect.suspend(() => {
    const { text: out, unset } = substituteDeferred(text, env)
    const first = unset[0]
    return first === undefined ? Effect.succeed(out) : Effect.fail(new MissingEnvVar({ file, line: first.line, variable: first.variable }))
  })
