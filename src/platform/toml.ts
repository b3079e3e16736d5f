import { Data, Effect, ParseResult, Schema } from "effect"
import * as Toml from "smol-toml"

/** TOML reading shared by the project config, model sidecars and the policy block: parse, decode, locate keys. */

const where = (file: string, line: number | undefined) => (line === undefined ? file : `${file}:${line}`)

/** The file is not valid TOML. */
export class TomlSyntax extends Data.TaggedError("TomlSyntax")<{
  readonly file: string
  readonly line: number | undefined
  readonly detail: string
}> {
  readonly code = "toml-syntax"
  override get message() {
    return `${where(this.file, this.line)}: invalid TOML: ${this.detail}`
  }
}

/** A key the schema does not know, named by its dotted path. */
export class UnknownKey extends Data.TaggedError("UnknownKey")<{
  readonly file: string
  readonly line: number | undefined
  readonly path: string
}> {
  readonly code = "config-unknown-key"
  override get message() {
    return `${where(this.file, this.line)}: unknown key ${this.path}`
  }
}

/** A value of the wrong type or outside its allowed set. */
export class InvalidValue extends Data.TaggedError("InvalidValue")<{
  readonly file: string
  readonly line: number | undefined
  readonly path: string
  readonly detail: string
}> {
  readonly code = "config-invalid"
  override get message() {
    return `${where(this.file, this.line)}: ${this.path === "" ? "" : `${this.path}: `}${this.detail}`
  }
}

export type TomlDecodeError = TomlSyntax | UnknownKey | InvalidValue

type PathSegment = PropertyKey

/** `adapter.wh.token`, `policy.rules[2].scope` */
export const formatPath = (path: ReadonlyArray<PathSegment>): string =>
  path.reduce<string>(
    (acc, seg) => (typeof seg === "number" ? `${acc}[${seg}]` : acc === "" ? String(seg) : `${acc}.${String(seg)}`),
    ""
  )

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * Best-effort line of a key path in TOML text: walks the path's named segments, each found
 * at or after the previous one, as a `key =` assignment, a `[table]` header, or `key.sub =`.
 */
export const locateKey = (text: string, path: ReadonlyArray<PathSegment>): number | undefined => {
  const lines = text.split("\n")
  let from = 0
  let found: number | undefined
  for (const seg of path) {
    if (typeof seg !== "string") continue
    const key = escapeRegex(seg)
    const pattern = new RegExp(`(^\\s*"?${key}"?\\s*[=.])|(^\\s*\\[\\[?[^\\]]*\\b${key}"?\\]\\]?)|([{,]\\s*"?${key}"?\\s*=)`)
    const index = lines.findIndex((line, i) => i >= from && pattern.test(line))
    if (index === -1) continue
    found = index + 1
    from = index
  }
  return found
}

/** Parses TOML text (no `${VAR}` substitution here) into plain data. */
export const parseToml = (text: string, file: string): Effect.Effect<Record<string, unknown>, TomlSyntax> =>
  Effect.try({
    try: () => Toml.parse(text) as Record<string, unknown>,
    catch: (error) => {
      const e = error as { line?: number; message?: string }
      const detail = (e.message ?? String(error)).split("\n")[0]!.replace(/^Invalid TOML document:\s*/, "")
      return new TomlSyntax({ file, line: e.line, detail })
    }
  })

/** Maps the first schema issue to a one-line error with the dotted key path and its line. */
export const schemaIssueToError = (
  error: ParseResult.ParseError,
  text: string,
  file: string,
  prefix: ReadonlyArray<PathSegment> = []
): UnknownKey | InvalidValue => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  const issue = issues.find((i) => i._tag === "Unexpected") ?? issues[0]
  const path = [...prefix, ...(issue?.path ?? [])]
  const line = locateKey(text, path)
  if (issue?._tag === "Unexpected") return new UnknownKey({ file, line, path: formatPath(path) })
  return new InvalidValue({ file, line, path: formatPath(path), detail: issue?.message ?? "invalid value" })
}

/**
 * Decodes TOML text against a schema: unknown keys are errors, every issue names the
 * dotted path and (best effort) the line. `text` must already have `${VAR}`s substituted.
 */
export const decodeToml = <A, I>(
  schema: Schema.Schema<A, I, never>,
  text: string,
  file: string
): Effect.Effect<A, TomlDecodeError> =>
  Effect.flatMap(parseToml(text, file), (data) => decodeTomlValue(schema, data, text, file))

/** Decodes already-parsed TOML data, reporting issues against the original text. */
export const decodeTomlValue = <A, I>(
  schema: Schema.Schema<A, I, never>,
  data: unknown,
  text: string,
  file: string,
  prefix: ReadonlyArray<PathSegment> = []
): Effect.Effect<A, UnknownKey | InvalidValue> =>
  Schema.decodeUnknown(schema, { onExcessProperty: "error", errors: "all" })(data).pipe(
    Effect.mapError((error) => schemaIssueToError(error, text, file, prefix))
  )
