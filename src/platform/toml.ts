import { Effect, ParseResult, Schema } from "effect"
import * as Toml from "smol-toml"
import { InvalidValue, TomlSyntax, type TomlDecodeError, UnknownKey } from "./tomlErrors"
import { safeIssue } from "./tomlIssues"
import { checkNesting } from "./tomlNesting"

/** TOML reading shared by the project config, model sidecars and the policy block: parse, decode, locate keys. */

export { InvalidValue, type TomlDecodeError, TomlSyntax, UnknownKey } from "./tomlErrors"

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
    // A key too long for a regular expression is not searched for (the line stays best effort).
    if (typeof seg !== "string" || seg.length > 1024) continue
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
  }).pipe(Effect.flatMap((data) => checkNesting(data, file, (path) => locateKey(text, path))))

/** Maps the first schema issue to a one-line error with the dotted key path and its line. */
export const schemaIssueToError = (
  error: ParseResult.ParseError,
  text: string,
  file: string,
  prefix: ReadonlyArray<PathSegment> = [],
  knownSecrets?: ReadonlySet<PropertyKey>
): UnknownKey | InvalidValue => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  const issue = issues.find((i) => i._tag === "Unexpected") ?? issues[0]
  const path = [...prefix, ...(issue?.path ?? [])]
  const line = locateKey(text, path)
  if (issue?._tag === "Unexpected") return new UnknownKey({ file, line, path: formatPath(path) })
  return new InvalidValue({ file, line, path: formatPath(path), detail: safeIssue(error, issue, knownSecrets) })
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
  prefix: ReadonlyArray<PathSegment> = [],
  /** Asked only when the data fails to decode. */
  knownSecrets?: () => ReadonlySet<PropertyKey>
): Effect.Effect<A, UnknownKey | InvalidValue> =>
  Schema.decodeUnknown(schema, { onExcessProperty: "error", errors: "all" })(data).pipe(
    Effect.mapError((error) => schemaIssueToError(error, text, file, prefix, knownSecrets?.()))
  )
