import { Effect } from "effect"
import { MissingEnvVar } from "./errors"

const reference = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g

/** Escapes a value for a TOML basic string, so a `"` in a secret cannot end the string. */
const escapeForBasicString = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')

/**
 * Index where a TOML comment starts on this line (outside any string), and for each
 * offset before it whether it sits inside a double-quoted string.
 */
const scanLine = (line: string): { readonly commentAt: number; readonly inBasic: ReadonlyArray<boolean> } => {
  const inBasic: Array<boolean> = []
  let quote: '"' | "'" | undefined
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]
    inBasic.push(quote === '"')
    if (quote === undefined) {
      if (ch === "#") return { commentAt: i, inBasic }
      if (ch === '"' || ch === "'") quote = ch
    } else if (ch === "\\" && quote === '"') {
      i++
      inBasic.push(true)
    } else if (ch === quote) {
      quote = undefined
    }
  }
  return { commentAt: line.length, inBasic }
}

/**
 * Replaces every `${VAR}` outside comments with the variable's value; a variable that is
 * not set fails with the file and line. Values inside double-quoted strings are escaped.
 */
export const substituteEnvVars = (
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  file: string
): Effect.Effect<string, MissingEnvVar> =>
  Effect.suspend(() => {
    const lines = text.split("\n")
    const out: Array<string> = []
    for (let n = 0; n < lines.length; n++) {
      const line = lines[n]!
      if (!line.includes("${")) {
        out.push(line)
        continue
      }
      const { commentAt, inBasic } = scanLine(line)
      const body = line.slice(0, commentAt)
      let missing: string | undefined
      const replaced = body.replace(reference, (_match, name: string, offset: number) => {
        const value = env[name]
        if (value === undefined) {
          missing ??= name
          return ""
        }
        return inBasic[offset] === true ? escapeForBasicString(value) : value
      })
      if (missing !== undefined) return Effect.fail(new MissingEnvVar({ file, line: n + 1, variable: missing }))
      out.push(replaced + line.slice(commentAt))
    }
    return Effect.succeed(out.join("\n"))
  })
