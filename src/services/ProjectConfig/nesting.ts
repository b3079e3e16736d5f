import { Effect, Option } from "effect"
import { TomlSyntax } from "./errors"
import { elide } from "./echo"

/** Deepest table/array nesting a pcli TOML file may have; real files stay under ten. */
export const MAX_NESTING = 64

/** The key path of the first table or array nested deeper than `max`, found without recursion. */
export const tooDeep = (data: unknown, max: number = MAX_NESTING): Option.Option<ReadonlyArray<PropertyKey>> => {
  const stack: Array<readonly [unknown, ReadonlyArray<PropertyKey>]> = [[data, []]]
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [value, path] = top
    if (typeof value !== "object" || value === null || value instanceof Date) continue
    if (path.length > max) return Option.some(path)
    const entries: ReadonlyArray<readonly [PropertyKey, unknown]> = Array.isArray(value)
      ? value.map((v, i) => [i, v] as const)
      : Object.entries(value)
    for (const [key, child] of entries) stack.push([child, [...path, key]])
  }
  return Option.none()
}

/**
 * Refuses parsed TOML nested deeper than MAX_NESTING before anything recurses over it
 * (a 5,000-level dotted key otherwise overflows the schema decoder's stack).
 */
export const checkNesting = <A>(
  data: A,
  file: string,
  locate: (path: ReadonlyArray<PropertyKey>) => number | undefined
): Effect.Effect<A, TomlSyntax> =>
  Option.match(tooDeep(data), {
    onNone: () => Effect.succeed(data),
    onSome: (path) =>
      Effect.fail(
        new TomlSyntax({
          file,
          line: locate(path.slice(0, 4)),
          detail: `keys nested more than ${MAX_NESTING} levels deep (${elide(path.map(String).join("."), 120)})`
        })
      )
  })
